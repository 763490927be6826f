import { describe, expect, it } from 'vitest'
import { createRedactor, displayUrl, redactDeep } from '../../core/redact'
import { secretValues } from '../../core/env'

describe('redaction', () => {
  it('hides every secret of the environment, and key-shaped strings', () => {
    const env = { MISTRAL_API_KEY: 'abcdef123456', PATH: '/usr/bin', DATABASE_URL: 'postgres://u:s3cretpw@h/db', AI_OFFLINE: '1' }
    const redact = createRedactor(secretValues(env))
    expect(redact('key abcdef123456 in /usr/bin')).toBe('key [redacted] in /usr/bin')
    expect(redact('postgres://u:s3cretpw@h/db')).toBe('postgres://u:[redacted]@h/db')
    expect(redact('Incorrect API key provided: sk-proj-AbCdEf0123456789xyz.')).toBe('Incorrect API key provided: [redacted].')
    expect(redact('x-api-key sk-ant-api03-zzzzzzzzzzzz')).toBe('x-api-key [redacted]')
    expect(redact('Authorization: Bearer abcdefghijklmnop')).toBe('Authorization: Bearer [redacted]')
    expect(redactDeep({ a: ['abcdef123456'], b: 3 }, redact)).toEqual({ a: ['[redacted]'], b: 3 })
  })

  it('shows URLs without credentials or query', () => {
    expect(displayUrl('https://user:pw@llm.internal:8443/v1/?token=x')).toBe('https://llm.internal:8443/v1')
  })
})
