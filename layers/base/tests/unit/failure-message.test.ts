// A failed call in the hub's language: a refusal the catalogs know is said in their words (with
// the values the route sent), any other keeps the route's own sentence, and a bare status gets
// the status's sentence.
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { failureMessage, TRANSLATED_REFUSALS } from '#layers/base/composables/failure-message'
import { catalog, translator } from '#tests/helpers/catalogs'

/** A `$fetch` rejection as the hub's API gives it: its body in `data`. */
function refusal(status: number, statusMessage: string, data: Record<string, unknown>) {
  return { statusCode: status, data: { statusCode: status, statusMessage, message: statusMessage, data } }
}

describe('failure messages', () => {
  const fr = translator('fr')
  const en = translator('en')

  it('says a known refusal in the hub\'s language, its values filled in', () => {
    expect(failureMessage(refusal(401, 'Wrong email or password.', { code: 'invalid_credentials' }), 'x', fr)).toBe('E-mail ou mot de passe erroné.')
    expect(failureMessage(refusal(429, 'Too many failed sign-ins for this account or address: try again in 42 s.', { code: 'too_many_attempts', retryAfterSeconds: 42 }), 'x', fr))
      .toBe('Trop d\'essais manqués : réessayez dans 42 s.')
    expect(failureMessage(refusal(409, 'The domain a.example already belongs to Garage Nord: remove it there first.', { code: 'domain_taken', domain: 'a.example', owner: 'Garage Nord' }), 'x', en))
      .toBe('The domain a.example already belongs to Garage Nord: remove it there first.')
  })

  it('keeps the route\'s sentence for a code the catalogs leave to it, or when a value is missing', () => {
    expect(failureMessage(refusal(404, 'No such client.', { code: 'not_found' }), 'x', fr)).toBe('No such client.')
    expect(failureMessage(refusal(409, 'The domain a.example already belongs to B.', { code: 'domain_taken', domain: 'a.example' }), 'x', fr)).toBe('The domain a.example already belongs to B.')
  })

  it('says the status when the route said nothing, the fallback when there is nothing to say', () => {
    expect(failureMessage({ statusCode: 404 }, 'x', fr)).toBe(fr('base.failure.notFound'))
    expect(failureMessage({ statusCode: 404 }, 'x', null)).toBe('It does not exist (or no longer does).')
    expect(failureMessage({ statusCode: 409 }, 'Not saved.', fr)).toBe('Not saved.')
    expect(failureMessage(null, 'Not saved.', fr)).toBe('Not saved.')
  })

  it('has words in both languages for every refusal it translates, and each is a code the server sends', () => {
    for (const lang of ['en', 'fr'] as const) {
      const known = catalog(lang)
      expect(TRANSLATED_REFUSALS.filter(code => !known.has(`base.refusal.${code}`)), lang).toEqual([])
      expect([...known.keys()].filter(key => key.startsWith('base.refusal.') && !TRANSLATED_REFUSALS.includes(key.slice('base.refusal.'.length))), lang).toEqual([])
    }
    // The server's sources (routes, utilities, cores), tests and catalogs left out.
    const sent = new Set(execFileSync('grep', ['-rhowE', '--include=*.ts', '--exclude-dir=tests', '--exclude-dir=composables', TRANSLATED_REFUSALS.join('|'), 'server', 'layers'], { cwd: `${import.meta.dirname}/../../../..`, encoding: 'utf8' }).split('\n'))
    expect(TRANSLATED_REFUSALS.filter(code => !sent.has(code))).toEqual([])
  })
})
