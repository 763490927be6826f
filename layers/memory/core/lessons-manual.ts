// A lesson a person records by hand: a scar (a failure to remember) or a victory (a success
// to reproduce), written by the same recorder as the spawn loop's (recordLesson) with who
// recorded it, audited in hub_audit, and re-indexed in the vector index at once so the next
// spawn's recall can find it.
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { agents } from '#db/schema/agents'
import type { LearnLesson } from '#db/schema/learn'
import { LESSON_KINDS, recordLesson, type LessonKind } from './lessons'
import type { Embedder } from './vectors/embedder'
import { reindexScar, type ReindexResult } from './vectors/reindex-scar'

export { LESSON_KINDS }
export type ManualLessonKind = LessonKind

export const LESSON_RECORDED_ACTION = 'learning.lesson_recorded'

export class ManualLessonError extends Error {
  constructor(readonly code: 'unknown_agent' | 'no_actor', message: string) {
    super(message)
    this.name = 'ManualLessonError'
  }
}

export interface ManualLessonInput {
  kind: ManualLessonKind
  title: string
  /** What happened (the error, or what worked). */
  description: string
  /** What was added to prevent recurrence, or the pattern to reproduce. */
  checkAdded?: string
  tags?: string[]
  /** The agent the lesson belongs to (codename); none for a global lesson. */
  agent?: string | null
  /** The tenant (clients.id) it was learnt for. */
  tenantId?: string | null
  /** Where it came from, also kept as tags so recall and the lessons list can show it. */
  tenantSlug?: string | null
  messageId?: number | null
  spawnId?: string | null
  /** The person recording it (their e-mail). */
  actor: string
}

export interface ManualLessonResult {
  lesson: LearnLesson
  index: ReindexResult
}

/** The person's tags, then where the lesson came from; lower-case, unique, in order. */
export function lessonTags(input: Pick<ManualLessonInput, 'tags' | 'tenantSlug' | 'messageId' | 'spawnId'>): string[] {
  const tags = [
    ...(input.tags ?? []),
    'recorded-by-hand',
    ...(input.tenantSlug ? [`tenant:${input.tenantSlug}`] : []),
    ...(input.messageId ? [`message:${input.messageId}`] : []),
    ...(input.spawnId ? [`spawn:${input.spawnId}`] : []),
  ].map(tag => tag.trim().toLowerCase()).filter(Boolean)
  return [...new Set(tags)]
}

export async function recordManualLesson(
  deps: { db: Db, embedder: Embedder, log?: (line: string) => void },
  input: ManualLessonInput,
): Promise<ManualLessonResult> {
  const { db } = deps
  const actor = input.actor?.trim()
  if (!actor) throw new ManualLessonError('no_actor', 'a lesson recorded by hand names the person recording it')
  const agent = input.agent?.trim() || null
  if (agent) {
    const [known] = await db.select({ codename: agents.codename }).from(agents).where(eq(agents.codename, agent))
    if (!known) throw new ManualLessonError('unknown_agent', `no agent with codename "${agent}": leave it empty for a global lesson`)
  }
  // Written with its audit in one transaction; its importance is left to the later scoring
  // run (vector-sync), since a background scoring cannot use a transaction that has ended.
  const { lesson } = await db.transaction(async (tx) => {
    const recorded = await recordLesson(tx, {
      kind: input.kind,
      title: input.title,
      description: input.description,
      checkAdded: input.checkAdded,
      tags: lessonTags(input),
      agent,
      tenantId: input.tenantId ?? null,
      sourceSpawnId: input.spawnId ?? null,
      recordedBy: actor,
    })
    await recordAudit(tx, {
      actor,
      action: LESSON_RECORDED_ACTION,
      target: `learn_lesson:${recorded.lesson.id}`,
      details: {
        kind: input.kind,
        title: recorded.lesson.title,
        agent,
        tenant: input.tenantSlug ?? undefined,
        messageId: input.messageId ?? undefined,
        spawnId: input.spawnId ?? undefined,
      },
    })
    return recorded
  })
  // Recallable within seconds; an embedding failure defers it to the next sync (never lost).
  const index = await reindexScar({ db, embedder: deps.embedder, log: deps.log }, lesson.id)
  return { lesson, index }
}
