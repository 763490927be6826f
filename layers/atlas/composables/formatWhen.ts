const formatter = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })

/** A date and time rendered the same on the server and in the browser (UTC), so hydration agrees. */
export function formatWhen(iso: string | Date | null | undefined): string {
  if (!iso) return '—'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? String(iso) : `${formatter.format(date)} UTC`
}
