// One message's story as the message page shows it (issue 36, Deliver 4): the output schema of
// GET /api/atlas/messages/:id/timeline, shared by the route that checks its answer, the API
// document and the page. Framework-free.
import { z } from 'zod'
import { MessageValues } from '#layers/base/core/message-values'

/** What a step is about, in the order a message usually lives them. */
export const TIMELINE_STEP_KINDS = [
  'received', 'authenticated', 'scanned', 'ocr', 'classified', 'guardrail', 'admission', 'work_record',
  'spawn_queued', 'spawned', 'iteration', 'deployed', 'qa', 'escalated', 'actioned', 'recap', 'reply_draft',
  'lesson', 'reclassify', 'mail_refused', 'other',
] as const

/** Who or what did the step: a person (an e-mail), an automate, the model, the agent, a scanner. */
export const TIMELINE_ACTOR_KINDS = ['person', 'automate', 'model', 'agent', 'scanner'] as const

/** done: it happened as hoped; failed: it went wrong; waiting: it waits for someone; warning: it happened with a doubt. */
export const TIMELINE_OUTCOMES = ['done', 'failed', 'waiting', 'warning'] as const

// The words are the server's English, for any client; beside them, for a page in another
// language, a `*Key` names the message in the hub's catalogs (atlas.timeline.steps.…) with its
// `*Values`. A text without a key (a reason, a note, an error passed through) is shown as written.

export const TimelineLink = z.object({
  label: z.string(),
  labelKey: z.string().optional(),
  labelValues: MessageValues.optional(),
  /** A hub page: the spawn, the work record, the lesson. */
  to: z.string().startsWith('/hub/'),
})

export const TimelineStep = z.object({
  /** Stable across refreshes (the source row), for the page's keys and tests. */
  id: z.string(),
  kind: z.enum(TIMELINE_STEP_KINDS),
  at: z.iso.datetime(),
  title: z.string(),
  titleKey: z.string().optional(),
  titleValues: MessageValues.optional(),
  detail: z.string().nullable(),
  detailKey: z.string().optional(),
  detailValues: MessageValues.optional(),
  actor: z.string(),
  actorKind: z.enum(TIMELINE_ACTOR_KINDS),
  outcome: z.enum(TIMELINE_OUTCOMES),
  /** The spawn the step belongs to (its failure offers "Record the scar" for that spawn). */
  spawnId: z.uuid().nullable(),
  links: z.array(TimelineLink),
})

export const MessageTimeline = z.object({
  messageId: z.number().int().positive(),
  /** The inbox status now (what the header badge says), for the page's last word. */
  status: z.string(),
  steps: z.array(TimelineStep),
})

export type TimelineStepKind = typeof TIMELINE_STEP_KINDS[number]
export type TimelineActorKind = typeof TIMELINE_ACTOR_KINDS[number]
export type TimelineOutcome = typeof TIMELINE_OUTCOMES[number]
export type TimelineStepView = z.infer<typeof TimelineStep>
export type MessageTimelineView = z.infer<typeof MessageTimeline>

/** A failed spawn as a step tells it: what "Record the scar" fills the form with. */
export interface FailedSpawn {
  spawnId: string
  title: string
  reason: string | null
}

/** How a step's title and detail are told: the server's English, or the page's words for the reader. */
export type StepWords = (step: TimelineStepView) => { title: string, reason: string | null }
const english: StepWords = step => ({ title: step.title, reason: step.detail })

/** The latest failed spawn of a story (null: none failed), for the lesson form's scar. */
export function latestFailedSpawn(timeline: MessageTimelineView | null | undefined, words: StepWords = english): FailedSpawn | null {
  const step = [...timeline?.steps ?? []].reverse().find(s => s.kind === 'iteration' && s.outcome === 'failed' && s.spawnId !== null)
  return step ? { spawnId: step.spawnId!, ...words(step) } : null
}

export { MessageValues }
