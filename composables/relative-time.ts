const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000],
]
const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })

/** "3 minutes ago" for an ISO time, relative to `now`. */
export function relativeTime(iso: string, now = Date.now()): string {
  const delta = new Date(iso).getTime() - now
  for (const [unit, ms] of units) {
    if (Math.abs(delta) >= ms || unit === 'second') return format.format(Math.round(delta / ms), unit)
  }
  return iso
}
