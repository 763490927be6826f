// The lessons registry as the hub lists it: scars (every kind but success) and victories,
// newest first, with their recall record (how often a briefing carried them, and when last).
import { and, desc, eq, ilike, isNull, ne, or, type SQL } from 'drizzle-orm'
import type { Db } from '../../../db/client'
import { learnLessons, type LearnLesson } from '../../../db/schema/learn'

export const LESSON_LIST_KINDS = ['scar', 'victory'] as const
export type LessonListKind = typeof LESSON_LIST_KINDS[number]

export interface LessonView {
  id: number
  kind: LessonListKind
  registryKind: LearnLesson['kind']
  title: string
  description: string
  checkAdded: string
  tags: string[]
  agent: string | null
  importance: number | null
  recallCount: number
  lastRecalledAt: Date | null
  archived: boolean
  createdAt: Date
}

export interface LessonFilters {
  kind?: LessonListKind
  agent?: string
  q?: string
  archived?: boolean
  limit?: number
}

export function lessonView(row: LearnLesson): LessonView {
  return {
    id: row.id, kind: row.kind === 'success' ? 'victory' : 'scar', registryKind: row.kind, title: row.title, description: row.description,
    checkAdded: row.checkAdded, tags: row.tags, agent: row.agent, importance: row.importance, recallCount: row.recallCount,
    lastRecalledAt: row.lastRecalledAt, archived: row.archivedAt !== null, createdAt: row.createdAt,
  }
}

export async function listLessons(db: Db, filters: LessonFilters = {}): Promise<LessonView[]> {
  const where: SQL[] = []
  if (filters.kind) where.push(filters.kind === 'victory' ? eq(learnLessons.kind, 'success') : ne(learnLessons.kind, 'success'))
  if (filters.agent) where.push(eq(learnLessons.agent, filters.agent))
  if (!filters.archived) where.push(isNull(learnLessons.archivedAt))
  if (filters.q) {
    const like = `%${filters.q.replace(/[\\%_]/g, c => `\\${c}`)}%`
    where.push(or(ilike(learnLessons.title, like), ilike(learnLessons.description, like))!)
  }
  const rows = await db.select().from(learnLessons).where(and(...where)).orderBy(desc(learnLessons.createdAt), desc(learnLessons.id)).limit(Math.min(filters.limit ?? 200, 500))
  return rows.map(lessonView)
}
