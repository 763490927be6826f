// The lessons registry as the hub lists it: scars (every kind but success) and victories,
// newest first, with their recall record (how often a briefing carried them, and when last),
// the spawns they were injected into (atlas_spawn_lessons) and the classifier's verdict.
import { and, desc, eq, gte, ilike, inArray, isNotNull, isNull, ne, or, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasSpawnLessons, atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons, type LearnLesson } from '#db/schema/learn'

export const LESSON_LIST_KINDS = ['scar', 'victory'] as const
export type LessonListKind = typeof LESSON_LIST_KINDS[number]
/** Archived lessons: hidden (default), shown with the others, or only them. */
export const ARCHIVED_FILTERS = ['hide', 'include', 'only'] as const
export type ArchivedFilter = typeof ARCHIVED_FILTERS[number]

export interface LessonInjection {
  spawnId: string
  messageId: number
  rank: number
  origin: 'own' | 'global'
  status: string
  queuedAt: Date
}

export interface LessonView {
  id: number
  kind: LessonListKind
  registryKind: LearnLesson['kind']
  title: string
  description: string
  checkAdded: string
  tags: string[]
  agent: string | null
  tenantId: string | null
  projectId: string | null
  importance: number | null
  learnable: boolean
  recallCount: number
  lastRecalledAt: Date | null
  archived: boolean
  recordedBy: string | null
  classification: { errorType: string, severity: number | null, confidence: number | null, rationale: string | null, tags: string[] } | null
  classifierError: string | null
  createdAt: Date
  /** The spawns whose briefing carried the lesson, newest first (at most 10). */
  injections: LessonInjection[]
  injectionCount: number
}

export interface LessonFilters {
  kind?: LessonListKind
  agent?: string
  tenantId?: string
  /** Importance at least this (0–10). */
  minImportance?: number
  q?: string
  archived?: ArchivedFilter | boolean
  limit?: number
}

export function lessonView(row: LearnLesson, injections: LessonInjection[] = [], injectionCount = injections.length): LessonView {
  return {
    id: row.id,
    kind: row.kind === 'success' ? 'victory' : 'scar',
    registryKind: row.kind,
    title: row.title,
    description: row.description,
    checkAdded: row.checkAdded,
    tags: row.tags,
    agent: row.agent,
    tenantId: row.tenantId,
    projectId: row.projectId,
    importance: row.importance,
    learnable: row.learnable,
    recallCount: row.recallCount,
    lastRecalledAt: row.lastRecalledAt,
    archived: row.archivedAt !== null,
    recordedBy: row.recordedBy,
    classification: row.errorType
      ? {
          errorType: row.errorType,
          severity: row.severity,
          confidence: row.classifierConfidence,
          rationale: row.classifierRationale,
          tags: row.classifierTags,
        }
      : null,
    classifierError: row.classifierError,
    createdAt: row.createdAt,
    injections,
    injectionCount,
  }
}

async function injectionsOf(db: Db, ids: number[]): Promise<Map<number, LessonInjection[]>> {
  const byLesson = new Map<number, LessonInjection[]>()
  if (!ids.length) return byLesson
  const rows = await db
    .select({
      lessonId: atlasSpawnLessons.lessonId,
      spawnId: atlasSpawnLessons.spawnId,
      rank: atlasSpawnLessons.rank,
      origin: atlasSpawnLessons.origin,
      messageId: atlasSpawns.messageId,
      status: atlasSpawns.status,
      queuedAt: atlasSpawns.queuedAt,
    })
    .from(atlasSpawnLessons)
    .innerJoin(atlasSpawns, eq(atlasSpawns.id, atlasSpawnLessons.spawnId))
    .where(inArray(atlasSpawnLessons.lessonId, ids))
    .orderBy(desc(atlasSpawns.queuedAt))
  for (const { lessonId, ...injection } of rows) {
    const list = byLesson.get(lessonId) ?? []
    list.push(injection)
    byLesson.set(lessonId, list)
  }
  return byLesson
}

export async function listLessons(db: Db, filters: LessonFilters = {}): Promise<LessonView[]> {
  const where: SQL[] = []
  if (filters.kind) where.push(filters.kind === 'victory' ? eq(learnLessons.kind, 'success') : ne(learnLessons.kind, 'success'))
  if (filters.agent) where.push(eq(learnLessons.agent, filters.agent))
  if (filters.tenantId) where.push(eq(learnLessons.tenantId, filters.tenantId))
  if (filters.minImportance !== undefined) where.push(gte(learnLessons.importance, filters.minImportance))
  const archived: ArchivedFilter = filters.archived === true ? 'include' : (filters.archived || 'hide')
  if (archived === 'hide') where.push(isNull(learnLessons.archivedAt))
  if (archived === 'only') where.push(isNotNull(learnLessons.archivedAt))
  if (filters.q) {
    const like = `%${filters.q.replace(/[\\%_]/g, c => `\\${c}`)}%`
    where.push(or(ilike(learnLessons.title, like), ilike(learnLessons.description, like))!)
  }
  const rows = await db
    .select()
    .from(learnLessons)
    .where(and(...where))
    .orderBy(desc(learnLessons.createdAt), desc(learnLessons.id))
    .limit(Math.min(filters.limit ?? 200, 500))
  const injections = await injectionsOf(db, rows.map(row => row.id))
  return rows.map((row) => {
    const all = injections.get(row.id) ?? []
    return lessonView(row, all.slice(0, 10), all.length)
  })
}
