// Every automate's description in both languages (useAutomateWords): the registry's English is
// what the pages showed before, so the English catalog must say it word for word, and French
// readers must never fall back to it.
import { describe, expect, it } from 'vitest'
import { automates } from '#automates/registry'
import en from '../../i18n/locales/en.json'
import fr from '../../i18n/locales/fr.json'

const english: Record<string, string> = en.health.automates
const french: Record<string, string> = fr.health.automates
/** A catalog message as it reads once compiled: the escaped `{'|'}` and `{'@'}` are literal. */
const asRead = (message: string) => message.replace(/\{'(.)'\}/g, '$1')

describe('automates\' descriptions in the catalogs', () => {
  it.each(Object.keys(automates))('%s has its words in English and French', async (name) => {
    const definition = await automates[name]!()
    expect(asRead(english[name] ?? '')).toBe(definition.description)
    expect(french[name]?.trim()).toBeTruthy()
  })
  it('holds no key for an automate the registry no longer has', () => {
    expect(Object.keys(english).sort()).toEqual(Object.keys(automates).sort())
    expect(Object.keys(french).sort()).toEqual(Object.keys(automates).sort())
  })
})
