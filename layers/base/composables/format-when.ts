export type WhenLang = 'en' | 'fr'
export type WhenStyle = 'medium' | 'short'

const LOCALES: Record<WhenLang, string> = { en: 'en-GB', fr: 'fr-FR' }
const formats = new Map<string, Intl.DateTimeFormat>()

/**
 * A date and time rendered the same on the server and in the browser (UTC), so hydration
 * agrees; in the hub's language unless `lang` says. `medium` shows the seconds (Atlas, health,
 * learning), `short` does not (worksites).
 */
export function formatWhen(iso: string | Date | null | undefined, lang: WhenLang = hubLocale(), timeStyle: WhenStyle = 'medium'): string {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  const key = `${lang}:${timeStyle}`
  let format = formats.get(key)
  if (!format) formats.set(key, format = new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: 'medium', timeStyle, timeZone: 'UTC' }))
  return `${format.format(date)} UTC`
}
