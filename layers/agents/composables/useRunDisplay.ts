// How a run's page shows its values: a run's, step's or approval's status as a badge colour, and
// a JSON value (a step's input, an approval's payload) as indented text.
type StatusColor = 'success' | 'warning' | 'error' | 'info' | 'neutral'
const STATUS_COLOR: Record<string, StatusColor> = {
  succeeded: 'success', awaiting_approval: 'warning', failed: 'error', stopped: 'error', running: 'info',
  ok: 'success', error: 'error', denied: 'error', rejected: 'neutral', expired: 'neutral', pending: 'warning', approved: 'success',
}

export function useRunDisplay() {
  const badgeColor = (status: string): StatusColor => STATUS_COLOR[status] ?? 'neutral'
  const pretty = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2))
  return { badgeColor, pretty }
}
