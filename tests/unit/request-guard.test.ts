import { describe, expect, it } from 'vitest'
import { badPathSegment, badQueryParameter, findBadText } from '#server/core/input-text'
import { bodyLimitFor, contentTypeRefusal, DEFAULT_BODY_LIMIT, exceedsJsonDepth, inlineScripts, isLoginForm, isUploadRoute, originRefusal, pageCsp } from '#server/core/request-policy'
import { passwordProblem } from '#server/core/password-policy'
import { redactQueryError } from '#server/core/error-redaction'
import { waitAfter } from '#server/core/sign-in'

describe('bad text', () => {
  it('names the field holding a NUL or a lone surrogate, anywhere', () => {
    expect(findBadText({ a: ['ok', { b: 'x\u0000' }] }, 'body')).toEqual({ field: 'body.a[1].b', problem: 'contains a NUL character' })
    expect(findBadText({ s: '\uDC00' }, 'body')?.field).toBe('body.s')
    expect(findBadText({ s: '😀 fine' }, 'body')).toBeNull()
    expect(badQueryParameter('?q=x%00y')?.field).toBe('query.q')
    expect(badQueryParameter('?q=%ED%A0%80')?.field).toBe('query.q')
    expect(badQueryParameter('?q=caf%C3%A9&limit=3')).toBeNull()
    expect(badPathSegment('/api/agents/x%00y')?.field).toBe('path segment 3 (x%00y)')
  })
})

describe('request policy', () => {
  it('measures JSON nesting without parsing, brackets inside strings aside', () => {
    expect(exceedsJsonDepth(`${'['.repeat(5000)}${']'.repeat(5000)}`)).toBe(true)
    expect(exceedsJsonDepth('{"a":'.repeat(65) + '1' + '}'.repeat(65))).toBe(true)
    expect(exceedsJsonDepth('{"a":'.repeat(64) + '1' + '}'.repeat(64))).toBe(false)
    expect(exceedsJsonDepth(JSON.stringify({ text: '[[[[[[[['.repeat(100), quote: 'a \\" [' }))).toBe(false)
    expect(exceedsJsonDepth('"unterminated [[[')).toBe(false)
  })

  it('refuses forms and foreign origins on changes only', () => {
    expect(contentTypeRefusal('POST', 'application/x-www-form-urlencoded', true)?.code).toBe('json_required')
    expect(contentTypeRefusal('POST', 'text/plain', true)?.status).toBe(403)
    expect(contentTypeRefusal('POST', 'application/json; charset=utf-8', true)).toBeNull()
    expect(contentTypeRefusal('DELETE', undefined, false)).toBeNull()
    expect(contentTypeRefusal('GET', 'text/plain', true)).toBeNull()
    expect(originRefusal('POST', { origin: 'https://evil.example', host: 'hub:3000' })?.code).toBe('foreign_origin')
    expect(originRefusal('POST', { origin: 'http://hub:3000', host: 'hub:3000' })).toBeNull()
    expect(originRefusal('PATCH', { 'host': 'hub:3000', 'sec-fetch-site': 'cross-site' })?.status).toBe(403)
    expect(originRefusal('GET', { origin: 'https://evil.example', host: 'hub:3000' })).toBeNull()
  })

  it('lets the login page post its own form, and no other path or type', () => {
    expect(isLoginForm('POST', '/login', 'application/x-www-form-urlencoded; charset=UTF-8')).toBe(true)
    expect(isLoginForm('POST', '/api/auth/login', 'application/x-www-form-urlencoded')).toBe(false)
    expect(isLoginForm('POST', '/login', 'multipart/form-data; boundary=x')).toBe(false)
    expect(isLoginForm('PUT', '/login', 'application/x-www-form-urlencoded')).toBe(false)
  })

  it('admits a multipart form on the upload route only, with the files\' own body limit', () => {
    expect(isUploadRoute('/api/agents/files')).toBe(true)
    expect(isUploadRoute('/api/agents/files/00000000-0000-4000-8000-000000000001')).toBe(false)
    expect(contentTypeRefusal('POST', 'multipart/form-data; boundary=x', true, true)).toBeNull()
    expect(contentTypeRefusal('POST', 'multipart/form-data; boundary=x', true, false)?.code).toBe('json_required')
    expect(contentTypeRefusal('POST', 'application/x-www-form-urlencoded', true, true)?.code).toBe('json_required')
    expect(bodyLimitFor('/api/agents/files', {})).toBe(5 * 10 * 1024 * 1024 + 256 * 1024)
    expect(bodyLimitFor('/api/agents/files', { AGENT_FILE_MAX_BYTES: '1000', AGENT_FILES_PER_MESSAGE: '2' })).toBe(2000 + 256 * 1024)
    expect(bodyLimitFor('/api/agents/chat', { AGENT_FILE_MAX_BYTES: '99999999' })).toBe(DEFAULT_BODY_LIMIT)
  })

  it('hashes executable inline scripts only', () => {
    const html = '<script>a()</script><script type="application/json">{"x":1}</script><script src="/x.js"></script><script type="module">b()</script>'
    expect(inlineScripts(html)).toEqual(['a()', 'b()'])
    expect(pageCsp(['abc='])).toContain('script-src \'self\' \'sha256-abc=\'')
    expect(pageCsp([])).toContain('frame-ancestors \'none\'')
  })
})

describe('password policy and sign-in waits', () => {
  it('refuses short, repeated, common and e-mail passwords', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/)
    expect(passwordProblem('aaaaaaaaaaaa')).toMatch(/repeats/)
    expect(passwordProblem('abcabcabcabc')).toMatch(/repeats/)
    expect(passwordProblem('Password123456')).toMatch(/common/)
    expect(passwordProblem('iloveyou1234!')).toMatch(/common/)
    expect(passwordProblem('ada@studio.test', 'ada@studio.test')).toMatch(/e-mail/)
    expect(passwordProblem('a long phrase of my own')).toBeNull()
  })

  it('waits nothing for ten failures, then 30 s doubling up to 15 minutes', () => {
    expect(waitAfter(9, 10)).toBe(0)
    expect(waitAfter(10, 10)).toBe(30_000)
    expect(waitAfter(11, 10)).toBe(60_000)
    expect(waitAfter(40, 10)).toBe(15 * 60_000)
  })
})

describe('500 logs', () => {
  it('drop the parameters drizzle writes into its error', () => {
    const cause = Object.assign(new Error('invalid byte sequence'), { parameters: ['secret@x'] })
    const error = Object.assign(new Error('Failed query: select * from hub_users where email = $1\nparams: secret@x'), { params: ['secret@x'], cause })
    redactQueryError(error)
    expect(error.message).toBe('Failed query: select * from hub_users where email = $1\nparams: (not logged)')
    expect(JSON.stringify({ ...error, stack: error.stack, cause: { ...cause } })).not.toContain('secret@x')
  })
})
