const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000],
]
const formats = new Map<string, Intl.RelativeTimeFormat>()

/** "3 minutes ago" (or "il y a 3 minutes" in French) for an ISO time, relative to `now`; in the hub's language unless `locale` says. */
export function relativeTime(iso: string, now = Date.now(), locale: string = hubLocale()): string {
  let format = formats.get(locale)
  if (!format) formats.set(locale, format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }))
  const delta = new Date(iso).getTime() - now
  for (const [unit, ms] of units) {
    if (Math.abs(delta) >= ms || unit === 'second') return format.format(Math.round(delta / ms), unit)
  }
  return iso
}
