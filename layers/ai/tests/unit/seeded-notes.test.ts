// The AI page translates a routing row's note only while it reads as the migrations seeded it:
// the seeded notes the page knows must be the migrations' own, word for word.
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PROVIDER_LABELS, type ProviderId } from '#layers/ai/core/catalog'
import { priceNoteKey, SEEDED_ROUTING_NOTES } from '#layers/ai/core/seeded-notes'
import { catalog, translator } from '#tests/helpers/catalogs'

const migrations = new URL('../../../../db/migrations/', import.meta.url)
const seeded = new Map<string, string>()
const prices: string[] = []
for (const file of readdirSync(migrations).filter(name => name.endsWith('.sql'))) {
  const text = readFileSync(new URL(file, migrations), 'utf8')
  const notes = (table: string) => text.split(`INSERT INTO "${table}"`).slice(1)
    .flatMap(insert => [...insert.split(/ON CONFLICT/)[0]!.matchAll(/^\s*\('([a-z_-]+)'.*, '((?:[^']|'')*)'\),?$/gm)])
    .map(row => [row[1]!, row[2]!.replaceAll('\'\'', '\'')] as const)
  for (const [feature, note] of notes('ai_routing')) seeded.set(feature, note)
  prices.push(...notes('ai_prices').map(([, note]) => note))
}

describe('seeded routing notes', () => {
  it('are the migrations\' own notes, every one of them', () => {
    expect(Object.fromEntries(seeded)).toEqual(SEEDED_ROUTING_NOTES)
  })
})

describe('seeded price notes', () => {
  it('each has a key both catalogs hold, whose English with its values is the note as seeded', () => {
    const say = translator('en')
    const french = catalog('fr')
    expect(prices.length).toBeGreaterThan(10)
    for (const note of prices) {
      const keyed = priceNoteKey(note)
      expect(keyed, note).toBeDefined()
      expect(french.has(keyed!.key), keyed!.key).toBe(true)
      expect(say(keyed!.key, keyed!.values)).toBe(note)
    }
    expect(priceNoteKey('negotiated with the vendor')).toBeUndefined()
  })
})

describe('providers\' names in the catalogs', () => {
  it('say in English what the server names them, and only for providers it knows', () => {
    const english = catalog('en')
    const named = [...english.keys()].filter(key => key.startsWith('ai.providers.labels.'))
    expect(named.length).toBeGreaterThan(0)
    for (const key of named) expect(english.get(key), key).toBe(PROVIDER_LABELS[key.slice('ai.providers.labels.'.length) as ProviderId])
  })
})
