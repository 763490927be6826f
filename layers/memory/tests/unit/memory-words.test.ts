// The memory's source types and vault spaces in both languages (useMemoryWords): the English
// catalog says word for word what the server names them, and French has a word for each.
import { describe, expect, it } from 'vitest'
import { SOURCE_LABELS } from '#layers/memory/core/sources'
import { SPACE_LABELS } from '#layers/memory/core/vault/layout'
import en from '../../i18n/locales/en.json'
import fr from '../../i18n/locales/fr.json'

describe('the memory\'s sources and spaces in the catalogs', () => {
  it('names every source type as the server does, and in French', () => {
    expect(en.memory.sources).toEqual(SOURCE_LABELS)
    expect(Object.keys(fr.memory.sources).sort()).toEqual(Object.keys(SOURCE_LABELS).sort())
  })
  it('names every vault space as the server does, and in French', () => {
    expect(en.memory.spaces).toEqual(SPACE_LABELS)
    expect(Object.keys(fr.memory.spaces).sort()).toEqual(Object.keys(SPACE_LABELS).sort())
  })
})
