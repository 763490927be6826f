// Immediate re-indexing of one scar (§2.3): called by other layers the moment a lesson is
// recorded (during a ReAct loop, for instance) so that it is recallable within seconds,
// without waiting for the nightly sync. Never throws for an embedding failure: the lesson
// then waits for the next sync ('deferred').
import { eq, inArray, and } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnLessons } from '#db/schema/learn'
import { memEmbeddings } from '#db/schema/mem'
import type { Embedder } from './embedder'
import { lessonDocument, lessonIndexable, lessonSourceType } from './sources/lessons'
import { storedFingerprints } from './store'
import { embedAndStore, toPending } from './sync'

export interface ReindexResult {
  status: 'indexed' | 'unchanged' | 'removed' | 'deferred'
  sourceType: 'scar' | 'victory'
  sourceId: string
  reason?: string
}

export async function reindexScar(
  deps: { db: Db, embedder: Embedder, log?: (line: string) => void },
  lessonId: number,
): Promise<ReindexResult> {
  const { db, embedder } = deps
  const sourceId = String(lessonId)
  const [lesson] = await db.select().from(learnLessons).where(eq(learnLessons.id, lessonId))
  const type = lesson ? lessonSourceType(lesson.kind) : 'scar'
  // A lesson that changed kind must not stay indexed under the other type.
  const other = type === 'scar' ? 'victory' : 'scar'
  await db.delete(memEmbeddings).where(and(eq(memEmbeddings.sourceType, other), eq(memEmbeddings.sourceId, sourceId)))
  if (!lesson || !lessonIndexable(lesson)) {
    await db.delete(memEmbeddings).where(and(inArray(memEmbeddings.sourceType, ['scar', 'victory']), eq(memEmbeddings.sourceId, sourceId)))
    return { status: 'removed', sourceType: type, sourceId, reason: lesson ? 'archived or without a description' : 'no such lesson' }
  }
  const item = toPending(lessonDocument(lesson))
  const previous = (await storedFingerprints(db, type, [sourceId])).get(sourceId)
  if (previous?.fingerprint === item.fingerprint) {
    const target = await embedder.target().catch(() => null)
    if (!target || target.model === previous.model) return { status: 'unchanged', sourceType: type, sourceId }
  }
  try {
    await embedAndStore(db, embedder, type, [item])
  }
  catch (error) {
    const reason = (error as Error).message
    deps.log?.(`[memory] ${type} ${sourceId}: immediate re-indexing deferred to the next sync (${reason})`)
    return { status: 'deferred', sourceType: type, sourceId, reason }
  }
  return { status: 'indexed', sourceType: type, sourceId }
}
