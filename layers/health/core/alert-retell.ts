// How long the lock guardian keeps trying to tell the team an alert its mail could not
// deliver; shared with the health page, which says which alerts it gave up on.
export const RETELL_FOR_MS = 24 * 3_600_000

/** The alert kinds the guardian tells the team of, and retries. */
export const RETOLD_KINDS: readonly string[] = ['zombie_lease']

/** Why the team was not told of an alert: a kind no guardian retells, given up after a day, or still retried. */
export type Untold = 'notSent' | 'never' | 'notYet'

export function untoldKind(alert: { kind: string, raisedAt: string }, now = Date.now()): Untold {
  if (!RETOLD_KINDS.includes(alert.kind)) return 'notSent'
  if (now - new Date(alert.raisedAt).getTime() > RETELL_FOR_MS) return 'never'
  return 'notYet'
}

const UNTOLD_WORDS: Record<Untold, string> = {
  notSent: 'not sent',
  never: 'never: the guardian gave up after a day',
  notYet: 'not yet: the guardian tries again at each run',
}

/**
 * What the health page says of an alert the team was not told of, in English (the page's catalog has both languages under
 * health.alerts.untold).
 */
export function untoldState(alert: { kind: string, raisedAt: string }, now = Date.now()): string {
  return UNTOLD_WORDS[untoldKind(alert, now)]
}
