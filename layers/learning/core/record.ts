// Recording a lesson from the hub's learning page: "record a win" (the seed's /victoire) and
// "record a scar". Written by the registry's own recorder (memory/core/lessons.ts) with its
// learnable flag, project and the hub audit in one transaction; then, outside it and without
// blocking the answer, its importance is scored through the AI facade (a model failure or the
// offline provider leaves it null for the later run, never fails the record) and it is
// re-indexed for recall at once.
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { learnLessons, type LearnLesson } from '#db/schema/learn'
import { LessonInputError, recordLesson, scoreOne, type ImportanceScorer, type LessonKind } from '#layers/memory/core/lessons'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { reindexScar, type ReindexResult } from '#layers/memory/core/vectors/reindex-scar'

export const LESSON_RECORDED_FROM_HUB = 'learning.lesson_recorded'

export interface HubLessonInput {
  kind: LessonKind
  title: string
  description: string
  checkAdded?: string
  tags: string[]
  agent?: string | null
  tenantId?: string | null
  projectId?: string | null
  importance?: number | null
  learnable?: boolean
  actor: string
}

export interface HubLessonDeps {
  db: Db
  embedder?: Embedder
  scoreImportance?: ImportanceScorer
  log?: (line: string) => void
  /** Receives the background work (tests await it); by default it runs on its own. */
  background?: (work: Promise<unknown>) => void
}

export interface HubLessonRecorded {
  lesson: LearnLesson
  /** Scoring in the background: the figure arrives later (null in the answer). */
  importancePending: boolean
}

export { LessonInputError }

export async function recordHubLesson(deps: HubLessonDeps, input: HubLessonInput): Promise<HubLessonRecorded> {
  const { db } = deps
  const log = deps.log ?? (() => {})
  const lesson = await db.transaction(async (tx) => {
    const { lesson: row } = await recordLesson(tx as unknown as Db, {
      kind: input.kind, title: input.title, description: input.description, checkAdded: input.checkAdded, tags: input.tags,
      agent: input.agent ?? null, tenantId: input.tenantId ?? null, recordedBy: input.actor, importance: input.importance ?? null,
    })
    const [updated] = await tx.update(learnLessons).set({ learnable: input.learnable ?? false, projectId: input.projectId ?? null })
      .where(eq(learnLessons.id, row.id)).returning()
    await recordAudit(tx, { actor: input.actor, action: LESSON_RECORDED_FROM_HUB, target: `learn_lesson:${row.id}`, details: { kind: input.kind, title: row.title, agent: row.agent, learnable: input.learnable ?? false } })
    return updated!
  })
  const importancePending = lesson.importance === null && Boolean(deps.scoreImportance)
  const work = (async () => {
    if (importancePending) await scoreOne(db, lesson, deps.scoreImportance!, log)
    if (deps.embedder) {
      const result: ReindexResult = await reindexScar({ db, embedder: deps.embedder, log }, lesson.id)
      if (result.status === 'deferred') log(`[learning] lesson ${lesson.id}: not re-indexed at once (${result.status}); the next vector sync does it`)
    }
  })().catch(error => log(`[learning] lesson ${lesson.id}: background work failed (${(error as Error).message}); the later runs catch up`))
  if (deps.background) deps.background(work)
  else void work
  return { lesson, importancePending }
}
