// How long the lock guardian keeps trying to tell the team an alert its mail could not
// deliver; shared with the health page, which says which alerts it gave up on.
export const RETELL_FOR_MS = 24 * 3_600_000

/** The alert kinds the guardian tells the team of, and retries. */
export const RETOLD_KINDS: readonly string[] = ['zombie_lease']

/** What the health page says of an alert the team was not told of. */
export function untoldState(alert: { kind: string, raisedAt: string }, now = Date.now()): string {
  if (!RETOLD_KINDS.includes(alert.kind)) return 'not sent'
  if (now - new Date(alert.raisedAt).getTime() > RETELL_FOR_MS) return 'never: the guardian gave up after a day'
  return 'not yet: the guardian tries again at each run'
}
