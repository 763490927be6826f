// A refusal in the hub's language: a code the catalogs know is said in their words, with the
// values the route sent; any other code, or a missing value, leaves the route's own sentence
// (failureMessage then says it).
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { refusalWords, TRANSLATED_REFUSALS } from '#layers/base/shared/refusals'
import { catalog, translator } from '#tests/helpers/catalogs'

describe('refusals in words', () => {
  const fr = translator('fr')
  const en = translator('en')

  it('says a known refusal in the hub\'s language, its values filled in', () => {
    expect(refusalWords({ code: 'invalid_credentials' }, fr)).toBe('E-mail ou mot de passe erroné.')
    expect(refusalWords({ code: 'too_many_attempts', message: 'Too many…', retryAfterSeconds: 42 }, fr)).toBe('Trop d\'essais manqués : réessayez dans 42 s.')
    expect(refusalWords({ code: 'domain_taken', domain: 'a.example', owner: 'Garage Nord' }, en)).toBe('The domain a.example already belongs to Garage Nord: remove it there first.')
  })

  it('leaves the route\'s sentence for a code the catalogs leave to it, a missing value, or no code', () => {
    expect(refusalWords({ code: 'not_found', message: 'No such client.' }, fr)).toBeNull()
    expect(refusalWords({ code: 'domain_taken', domain: 'a.example' }, fr)).toBeNull()
    expect(refusalWords({ message: 'x' }, fr)).toBeNull()
    expect(refusalWords(undefined, fr)).toBeNull()
  })

  it('has words in both languages for every refusal it translates, and each is a code the server sends', () => {
    for (const lang of ['en', 'fr'] as const) {
      const known = catalog(lang)
      expect(TRANSLATED_REFUSALS.filter(code => !known.has(`base.refusal.${code}`)), lang).toEqual([])
      expect([...known.keys()].filter(key => key.startsWith('base.refusal.') && !TRANSLATED_REFUSALS.includes(key.slice('base.refusal.'.length))), lang).toEqual([])
    }
    // The server's sources (routes, utilities, cores), tests and the client's words left out.
    const sent = new Set(execFileSync('grep', ['-rhowE', '--include=*.ts', '--exclude-dir=tests', '--exclude-dir=composables', '--exclude-dir=shared', TRANSLATED_REFUSALS.join('|'), 'server', 'layers'], { cwd: `${import.meta.dirname}/../../../..`, encoding: 'utf8' }).split('\n'))
    expect(TRANSLATED_REFUSALS.filter(code => !sent.has(code))).toEqual([])
  })
})
