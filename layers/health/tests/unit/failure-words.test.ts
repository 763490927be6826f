// An automate's failure in words (failure-words.ts): Node's system errors, a budget reached, a
// failing exit code with its last line. The supervised run that records it: tests/integration/supervise.test.ts.
import { describe, expect, it } from 'vitest'
import { automateFailureReason, exitFailureReason } from '#layers/health/core/failure-words'

const systemError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields)

describe('an automate\'s failure in words', () => {
  it('a refused connection names host and port, even inside an AggregateError (IPv4 and IPv6 tried)', () => {
    expect(automateFailureReason(systemError('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED', address: '127.0.0.1', port: 5432 })))
      .toBe('nothing answers on 127.0.0.1:5432: start the service or correct the address')
    const both = new AggregateError([systemError('x', { code: 'ECONNREFUSED', address: '::1', port: 993 }), systemError('y', { code: 'ECONNREFUSED', address: '127.0.0.1', port: 993 })], '')
    expect(automateFailureReason(both)).toBe('nothing answers on ::1:993: start the service or correct the address')
  })
  it('a missing file, a host that does not resolve, a budget reached', () => {
    expect(automateFailureReason(systemError('spawn clamscan ENOENT', { code: 'ENOENT', path: 'clamscan' }))).toBe('clamscan was not found (ENOENT): install it or correct the path')
    expect(automateFailureReason(systemError('getaddrinfo ENOTFOUND imap.studio.test', { code: 'ENOTFOUND', hostname: 'imap.studio.test' }))).toBe('the host imap.studio.test does not resolve: check the address')
    expect(automateFailureReason(systemError('the monthly budget of person a@b.c is reached: $10 of $10; a founder can raise it on /hub/usage', { code: 'budget_exceeded' })))
      .toBe('the monthly budget of person a@b.c is reached: $10 of $10; a founder can raise it on /hub/usage')
    expect(automateFailureReason(new Error('AI call refused: 429 budget_exceeded'))).toBe('a monthly budget is reached (AI call refused: 429 budget_exceeded): a founder can raise it on /hub/usage')
  })
  it('any other error keeps its message; a thrown non-error its text', () => {
    expect(automateFailureReason(new Error('ATLAS_IMAP_PORT: expected a port'))).toBe('ATLAS_IMAP_PORT: expected a port')
    expect(automateFailureReason('plain')).toBe('plain')
  })
  it('a failing exit code says itself, what was missing and the last line printed', () => {
    expect(exitFailureReason(3, 'step 1\nstep 2: the vault is not writable\n\n')).toBe('exited with code 3; last line: step 2: the vault is not writable')
    expect(exitFailureReason(1, '', 'set X: y')).toBe('exited with code 1; set X: y; it printed nothing')
  })
})
