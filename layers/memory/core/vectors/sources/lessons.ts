// Scars and victories: the lessons registry (learn_lessons). Every entry with a description;
// a `success` is a victory, any other kind a scar; archived lessons are left out (the
// forgetting curve makes them invisible to recall).
import { and, eq, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnLessons, type LearnLesson } from '#db/schema/learn'
import { joinParts } from '../chunk'
import type { SourceAdapter, SourceDocument } from './types'

export function lessonDocument(lesson: Pick<LearnLesson, 'id' | 'kind' | 'title' | 'description' | 'checkAdded' | 'tags' | 'agent' | 'importance'>): SourceDocument {
  return {
    sourceId: String(lesson.id),
    title: lesson.title,
    text: joinParts(lesson.title, lesson.description, lesson.checkAdded, lesson.tags.length ? `Tags: ${lesson.tags.join(', ')}` : ''),
    agent: lesson.agent,
    metadata: { kind: lesson.kind },
  }
}

export function lessonSourceType(kind: LearnLesson['kind']): 'scar' | 'victory' {
  return kind === 'success' ? 'victory' : 'scar'
}

/** Does this lesson belong in the vector index? */
export function lessonIndexable(lesson: Pick<LearnLesson, 'description' | 'archivedAt'>): boolean {
  return lesson.description.trim() !== '' && lesson.archivedAt === null
}

async function load(db: Db, victories: boolean): Promise<SourceDocument[]> {
  const rows = await db.select().from(learnLessons).where(and(
    victories ? eq(learnLessons.kind, 'success') : ne(learnLessons.kind, 'success'),
    isNull(learnLessons.archivedAt),
    sql`btrim(${learnLessons.description}) <> ''`,
  ))
  return rows.map(lessonDocument)
}

export const scarSource: SourceAdapter = { type: 'scar', load: async ({ db }) => ({ documents: await load(db, false) }) }
export const victorySource: SourceAdapter = { type: 'victory', load: async ({ db }) => ({ documents: await load(db, true) }) }
