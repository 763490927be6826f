import type { WhenLang } from './format-when'

/**
 * The hub's language (the account menu's choice) for words made outside a component's setup:
 * dates, relative times, failure sentences. English where no app is at hand (a unit test, the
 * server after an await), as before the hub spoke French.
 */
export function hubLocale(): WhenLang {
  return tryUseNuxtApp()?.$i18n?.locale.value === 'fr' ? 'fr' : 'en'
}

/** The hub's catalog for words made outside a component's setup; null where no app is at hand. */
export function hubTranslate(): ((key: string, values?: Record<string, unknown>) => string) | null {
  const i18n = tryUseNuxtApp()?.$i18n
  return i18n ? (key, values) => (values ? i18n.t(key, values) : i18n.t(key)) : null
}
