// Triggers (seed 003 §12.6): what makes a custom agent run without a person asking. Pure
// matching, no database: an event is matched against an index of triggers built once (by
// event kind), so a dispatcher pass costs a map lookup plus the candidate filters
// (bench agents.dispatch_events_per_s, 500 triggers).
import { Cron } from 'croner'
import cronstrue from 'cronstrue'
import { z } from 'zod'

/** The database events a trigger can listen to. */
export const TRIGGER_EVENTS = ['atlas_message', 'lesson_recorded', 'work_item_status'] as const
export type TriggerEvent = typeof TRIGGER_EVENTS[number]

export const TriggerFilter = z.object({
  field: z.string().trim().min(1).max(64).regex(/^[a-z_][a-z0-9_]*$/, 'a field name (snake_case)'),
  op: z.enum(['eq', 'neq', 'contains', 'changed']),
  value: z.string().max(500).optional(),
}).strict().refine(filter => filter.op === 'changed' || filter.value !== undefined, { message: 'eq, neq and contains need a value' })
export type TriggerFilter = z.output<typeof TriggerFilter>

/** The forge events a webhook trigger can start a run on (GitHub, Gitea and Forgejo name them alike). */
export const WEBHOOK_EVENTS = ['push', 'pull_request'] as const
export type WebhookEvent = typeof WEBHOOK_EVENTS[number]

/** A hook's URL segment: 24 random bytes, base64url. */
export const HookSlug = z.string().regex(/^[A-Za-z0-9_-]{32}$/, 'a hook slug')

export const TriggerInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('schedule'), cron: z.string().trim().min(9).max(100).refine(isValidCron, 'not a valid cron expression (5 fields, UTC)') }).strict(),
  z.object({ kind: z.literal('event'), event: z.enum(TRIGGER_EVENTS), filters: z.array(TriggerFilter).max(10).default([]) }).strict(),
  z.object({ kind: z.literal('mention') }).strict(),
  z.object({ kind: z.literal('mail'), event: z.string().uuid('mail: the tenant id'), filters: z.array(TriggerFilter).max(10).default([]) }).strict(),
  z.object({
    kind: z.literal('webhook'),
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, 'webhook: at least one event').max(WEBHOOK_EVENTS.length),
    /** Only pushes to (or pull requests into) this branch; none: every branch. */
    branch: z.string().trim().min(1).max(200).regex(/^[^\s~^:?*[\\]+$/, 'webhook: a branch name').nullable().default(null),
    /** The hook this trigger keeps (its URL and secret) when the agent is saved again; none: a new hook. */
    slug: HookSlug.optional(),
  }).strict(),
])
export type TriggerInput = z.output<typeof TriggerInput>

/**
 * Something that happened in the hub. `actor` is who caused it: an agent's own write carries
 * `agent-run:<run id>:…` and `agent` its codename, so the dispatcher never lets it wake itself.
 */
export interface HubEvent {
  kind: TriggerEvent | 'mention' | 'mail' | 'webhook'
  /** Stable id of what happened (message id, lesson id, work item id + status…): part of the fingerprint. */
  id: string
  actor: string
  /** The agent whose run caused the event (null: a person or an automate). */
  agent: string | null
  fields: Record<string, string | null>
  /** The values before the change (work item status change). */
  previous?: Record<string, string | null>
  /** Text scanned for @codename mentions (a note or an instruction document). */
  text?: string
  /** mail: the tenant the message was sorted to. */
  tenant?: string | null
}

export interface IndexedTrigger {
  id: number
  codename: string
  kind: 'event' | 'mention' | 'mail'
  event: string | null
  filters: TriggerFilter[]
}

export function isValidCron(expression: string): boolean {
  if (expression.trim().split(/\s+/).length !== 5) return false
  try {
    new Cron(expression, { timezone: 'UTC', paused: true })
    return true
  }
  catch {
    return false
  }
}

/** The schedule in words and its next runs (the Settings tab's preview). */
export function previewSchedule(expression: string, from: Date, count = 3): { description: string, next: string[] } {
  const cron = new Cron(expression, { timezone: 'UTC', paused: true })
  return {
    description: cronstrue.toString(expression, { use24HourTimeFormat: true }),
    next: cron.nextRuns(count, from).map(date => date.toISOString()),
  }
}

/** The latest due time of a schedule in (since, now]: the fingerprint of its firing (null: not due). */
export function dueTime(expression: string, since: Date, now: Date): Date | null {
  const cron = new Cron(expression, { timezone: 'UTC', paused: true })
  let due: Date | null = null
  let next = cron.nextRun(since)
  // Only the latest missed time fires: a dispatcher down for a day does not replay 1,440 runs.
  while (next && next.getTime() <= now.getTime()) {
    due = next
    next = cron.nextRun(next)
  }
  return due
}

export function filterMatches(filter: TriggerFilter, event: HubEvent): boolean {
  const value = event.fields[filter.field] ?? null
  switch (filter.op) {
    case 'eq': return value === filter.value
    case 'neq': return value !== filter.value
    case 'contains': return value !== null && value.toLowerCase().includes(filter.value!.toLowerCase())
    case 'changed': return event.previous !== undefined && (event.previous[filter.field] ?? null) !== value
  }
}

const MENTION = /(?:^|[^\w@])@([a-z0-9]+(?:-[a-z0-9]+)*)/g

/** The codenames mentioned as `@codename` in a text. */
export function mentionsIn(text: string): Set<string> {
  return new Set([...text.matchAll(MENTION)].map(match => match[1]!))
}

export interface TriggerIndex {
  match: (event: HubEvent) => IndexedTrigger[]
  size: number
}

/** Groups triggers by what they listen to: matching an event reads only its own group. */
export function indexTriggers(triggers: IndexedTrigger[]): TriggerIndex {
  const byKey = new Map<string, IndexedTrigger[]>()
  const mentions = new Map<string, IndexedTrigger[]>()
  for (const trigger of triggers) {
    if (trigger.kind === 'mention') {
      mentions.set(trigger.codename, [...(mentions.get(trigger.codename) ?? []), trigger])
      continue
    }
    const key = `${trigger.kind}:${trigger.event ?? ''}`
    byKey.set(key, [...(byKey.get(key) ?? []), trigger])
  }
  return {
    size: triggers.length,
    match(event) {
      if (event.kind === 'mention') return [...mentionsIn(event.text ?? '')].flatMap(codename => mentions.get(codename) ?? [])
      const key = event.kind === 'mail' ? `mail:${event.tenant ?? ''}` : `event:${event.kind}`
      return (byKey.get(key) ?? []).filter(trigger => trigger.filters.every(filter => filterMatches(filter, event)))
    },
  }
}

/** Whether the event was caused by the agent itself (its runs' writes never wake it, I7). */
export function causedBy(event: HubEvent, codename: string): boolean {
  return event.agent === codename
}

/** What makes one firing unique: the trigger plus what happened (two dispatchers agree on it). */
export function eventFingerprint(event: HubEvent): string {
  return `${event.kind}:${event.id}`
}
