// The hub's catalogs (the root app's and each layer's) as tests read them, and a translator that
// renders a message with vue-i18n itself (plural forms picked by {count}, escapes, named values),
// for tests that hold a server's English text to the catalog key it sends beside it.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { createI18n } from 'vue-i18n'

export type Lang = 'en' | 'fr'
export type Messages = { [key: string]: string | Messages }
export type MessageValues = Record<string, string | number>

const ROOT = join(import.meta.dirname, '../..')

function flatten(messages: Messages, prefix = '', into = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries(messages)) {
    const path = prefix ? `${prefix}.${key}` : key
    if (typeof value === 'string') into.set(path, value)
    else flatten(value, path, into)
  }
  return into
}

function catalogDirs(): string[] {
  const layers = readdirSync(join(ROOT, 'layers')).map(name => join(ROOT, 'layers', name, 'i18n/locales'))
  return [join(ROOT, 'i18n/locales'), ...layers].filter(dir => existsSync(join(dir, 'en.json')))
}

/** One layer's catalog of one language, as written. */
export function layerCatalog(layer: string, lang: Lang): Messages {
  return JSON.parse(readFileSync(join(ROOT, 'layers', layer, 'i18n/locales', `${lang}.json`), 'utf8')) as Messages
}

/** Every catalog of one language merged, as the hub loads them (each under its own first key). */
export function messages(lang: Lang): Messages {
  return Object.assign({}, ...catalogDirs().map(dir => JSON.parse(readFileSync(join(dir, `${lang}.json`), 'utf8')) as Messages)) as Messages
}

/** Every message of one language, by key. */
export function catalog(lang: Lang): Map<string, string> {
  return flatten(messages(lang))
}

/** `t(key, values)` as a page renders it in `lang`; throws on a key the catalogs lack. */
export function translator(lang: Lang): (key: string, values?: MessageValues) => string {
  const known = catalog(lang)
  // Both languages given, so vue-i18n's types see the locale's messages; only `lang`'s are read.
  const i18n = createI18n({ legacy: false, locale: lang, messages: { en: messages('en'), fr: messages('fr') }, missingWarn: false, fallbackWarn: false })
  return (key, values = {}) => {
    if (!known.has(key)) throw new Error(`no "${key}" in the ${lang} catalogs`)
    return i18n.global.t(key, values)
  }
}

/** A text the server words in English, with the catalog key and values it sends beside it. */
export interface Said { key: string, values?: MessageValues, english: string | null }

/** Fails unless both languages hold each key and the English message, with its values, is the text sent. */
export function expectSaid(said: Said[]): void {
  const english = catalog('en')
  const french = catalog('fr')
  const say = translator('en')
  for (const { key, values, english: text } of said) {
    expect(french.has(key), `${key} in fr.json`).toBe(true)
    expect(english.has(key), `${key} in en.json`).toBe(true)
    expect(say(key, values), key).toBe(text)
  }
}
