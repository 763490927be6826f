// The sidebar, the search palette and the landing pages show the domains in the reader's
// language (shared/domain-words.ts): every word of every descriptor has its key under
// app.domains in both catalogs, its English exactly the descriptor's, so a title changed or a
// page added in a layer's core/domain.ts without its words fails here, not silently in English.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { domains } from '#shared/domains'
import { localizeDomain } from '#shared/domain-words'

type Messages = { [key: string]: string | Messages | string[] }
const ROOT = resolve(import.meta.dirname, '../..')
const catalog = (lang: string) => JSON.parse(readFileSync(resolve(ROOT, `i18n/locales/${lang}.json`), 'utf8')) as Messages

function lookup(messages: Messages, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), messages)
}

describe('the domains\' words', () => {
  const words = domains.flatMap((domain) => {
    const found: Array<{ key: string, english: string }> = []
    localizeDomain(domain, (key, english) => {
      found.push({ key, english })
      return english
    })
    return found
  })

  it('reads every domain', () => {
    expect(words.length).toBeGreaterThan(domains.length * 2)
  })

  it('has each word in English as the descriptor says it, and in French', () => {
    const en = catalog('en')
    const fr = catalog('fr')
    expect(words.filter(({ key, english }) => lookup(en, key) !== english).map(({ key }) => key)).toEqual([])
    expect(words.filter(({ key }) => typeof lookup(fr, key) !== 'string').map(({ key }) => key)).toEqual([])
  })
})
