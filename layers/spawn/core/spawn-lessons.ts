// Every outcome a lesson: a spawn whose QA passed records a victory; one that failed (crash,
// timeout, no result), or escalated (QA still failing after the last iteration, a deploy
// that could not run, an agent that gave up) records a scar — the error text, the routed
// agent, the tenant, tags, the spawn it came from — through the memory's recordLesson:
// re-indexed at once, its importance scored in the background. Book-keeping: a failure here
// is logged, never allowed to change the spawn's outcome.
import { recordLesson, type LessonKind } from '#layers/memory/core/lessons'
import { clip } from './text'
import { normaliseUntrusted } from './untrusted'
import { formatQaError, type QaError } from './prompts'
import type { SpawnContext } from './spawn-context'
import type { WorkerDeps } from './worker-deps'
import { memoryOf } from './spawn-memory'

export interface OutcomeLesson {
  kind: LessonKind
  /** What happened, in a few words (the spawn's reason). */
  reason: string
  /** What kind of outcome: qa_passed, escalated, spawn_failed, timeout. */
  outcome: string
  errors?: QaError[]
  /** The agent's own summary (a victory's "what worked"). */
  summary?: string | null
}

/** The lesson's fields, from the spawn's context and its outcome. */
export function lessonFromOutcome(context: SpawnContext, lesson: OutcomeLesson, intent: string) {
  const where = context.tenant ? `${context.tenant.name} (${context.tenant.slug})` : 'no tenant'
  // The subject was written by the sender and lessons reach later system prompts: one line,
  // normalised (no invisible or bidi characters), clipped, quoted, and kept out of the title.
  const subject = clip(normaliseUntrusted(context.message.subject || '(no subject)').replace(/\s+/g, ' ').trim(), 160)
  const errors = (lesson.errors ?? []).slice(0, 20).map(error => `- ${clip(formatQaError(error), 500)}`)
  const title = lesson.kind === 'scar'
    ? clip(`${where}, ${intent} #${context.message.id}: ${lesson.reason}`, 200)
    : clip(`${where}, ${intent} #${context.message.id}: ${lesson.outcome === 'qa_passed' ? 'QA passed' : 'done'}`, 200)
  const description = [
    lesson.kind === 'scar' ? `Failure: ${lesson.reason}` : `What worked: ${lesson.summary?.trim() || lesson.reason}`,
    `Request (message #${context.message.id}, intent ${intent}, iteration ${context.spawn.iteration}), its subject quoted: "${subject}"`,
    ...(errors.length ? ['Errors:', ...errors] : []),
  ].join('\n')
  const tags = [intent, lesson.outcome, ...(context.tenant ? [context.tenant.slug] : []), ...new Set((lesson.errors ?? []).map(error => `qa:${error.kind}`))]
  return { title, description: clip(description, 10_000), tags: [...new Set(tags.map(tag => tag.toLowerCase().replace(/[^\p{L}\p{N}_.:/-]/gu, '-').slice(0, 48)))].slice(0, 20) }
}

export async function learnFromOutcome(deps: WorkerDeps, context: SpawnContext, lesson: OutcomeLesson): Promise<void> {
  const intent = context.inbox.intent ?? 'run'
  try {
    const memory = memoryOf(deps)
    const fields = lessonFromOutcome(context, lesson, intent)
    const recorded = await recordLesson(
      deps.db,
      {
        kind: lesson.kind,
        ...fields,
        agent: context.agent,
        tenantId: context.tenant?.id ?? null,
        sourceSpawnId: context.spawn.id,
        recordedBy: deps.actor,
      },
      {
        embedder: memory.embedderFor(context.tenant?.slug ?? null),
        scoreImportance: memory.scoreImportance,
        background: deps.background,
        log: deps.log,
      },
    )
    deps.log(`[atlas-spawn-worker] message #${context.message.id}: ${lesson.kind} #${recorded.lesson.id} recorded (vector index: ${recorded.index?.status ?? 'next sync'})`)
  }
  catch (error) {
    deps.log(`[atlas-spawn-worker] message #${context.message.id}: the ${lesson.kind} of spawn ${context.spawn.id} was not recorded: ${(error as Error).message}`)
  }
}
