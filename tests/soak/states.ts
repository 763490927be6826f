// Where a message stands once the soak stops injecting, from the tracking statuses of
// atlas_inbox (db/schema/atlas.ts) and the admission rule (layers/atlas/core/admission.ts):
//   terminal — nothing will ever move it: actioned, escalated, spawn_failed, rejected,
//              blocked_unsafe, quarantined;
//   person   — only a person moves it: awaiting_approval (admission `awaiting`: an operator
//              approves or rejects), classification_failed after the last attempt
//              (needs_human), classified with nothing to spawn (noise or conseil, or an
//              admission other than auto/approved: its record waits for a person);
//   system   — a running system moves it on by itself: received (the collector's pipeline),
//              classification_failed with attempts left (retried next cycle), classified with a
//              spawn intent admitted auto/approved (the orchestrator queues it), spawn_queued,
//              spawning, deploying, qa (a worker, or the orchestrator's recovery of a lost one).
// A settled system has no message in `system`.
import { isSpawnIntent } from '#layers/atlas/core/admission'

export type Standing = 'terminal' | 'person' | 'system'

export const TERMINAL_STATUSES = ['actioned', 'escalated', 'spawn_failed', 'rejected', 'blocked_unsafe', 'quarantined'] as const
const IN_FLIGHT = ['received', 'spawn_queued', 'spawning', 'deploying', 'qa']

export interface InboxState {
  status: string
  intent: string | null
  admission: string | null
  classifyAttempts: number
}

export function standingOf(state: InboxState, maxAttempts: number): { standing: Standing, why: string } {
  const { status } = state
  if ((TERMINAL_STATUSES as readonly string[]).includes(status)) return { standing: 'terminal', why: status }
  if (status === 'awaiting_approval') return { standing: 'person', why: 'an operator approves or rejects it' }
  if (status === 'classification_failed') {
    return state.classifyAttempts >= maxAttempts
      ? { standing: 'person', why: `classification failed ${state.classifyAttempts} times (the last attempt): needs a person` }
      : { standing: 'system', why: `classification failed ${state.classifyAttempts} of ${maxAttempts} times: retried next cycle` }
  }
  if (status === 'classified') {
    return state.intent !== null && isSpawnIntent(state.intent) && (state.admission === 'auto' || state.admission === 'approved')
      ? { standing: 'system', why: `${state.intent} admitted ${state.admission}: the orchestrator queues its spawn` }
      : { standing: 'person', why: `${state.intent ?? 'no intent'} (admission ${state.admission ?? 'none'}): nothing to spawn, its record waits for a person` }
  }
  if (IN_FLIGHT.includes(status)) return { standing: 'system', why: `${status}: in the pipeline or the spawn engine` }
  return { standing: 'system', why: `unknown status ${status}` }
}

/** Counts by standing and status, e.g. { terminal: { actioned: 80 }, person: { awaiting_approval: 2 } }. */
export function tally(states: InboxState[], maxAttempts: number): Record<Standing, Record<string, number>> {
  const counts: Record<Standing, Record<string, number>> = { terminal: {}, person: {}, system: {} }
  for (const state of states) {
    const { standing } = standingOf(state, maxAttempts)
    counts[standing][state.status] = (counts[standing][state.status] ?? 0) + 1
  }
  return counts
}

export function describeTally(counts: Record<Standing, Record<string, number>>): string {
  return (['terminal', 'person', 'system'] as const).map((standing) => {
    const entries = Object.entries(counts[standing])
    const total = entries.reduce((sum, [, n]) => sum + n, 0)
    return `${total} ${standing === 'person' ? 'waiting for a person' : standing === 'system' ? 'waiting on the system' : 'terminal'}${entries.length ? ` (${entries.map(([status, n]) => `${n} ${status}`).join(', ')})` : ''}`
  }).join('; ')
}
