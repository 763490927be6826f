// What the settings page shows of each connection: read with the readers their users read
// with, secrets only as "set" / "not set", a configuration error as its message.
import { describe, expect, it } from 'vitest'
import { createProviderRegistry } from '#layers/ai/core/providers'
import { describeConnections } from '../../core/describe'
import { createRateLimiter } from '../../core/rate-limit'
import { CONNECTION_NAMES } from '../../core/schemas'

const SECRETS = { ATLAS_IMAP_PASSWORD: 'imap-Secret-1234', ATLAS_SMTP_PASSWORD: 'smtp-Secret-5678', MISTRAL_API_KEY: 'mistral-Secret-9012', ANTHROPIC_API_KEY: 'sk-ant-api03-Secret-3456' }
const ENV = {
  ...SECRETS,
  ATLAS_IMAP_HOST: 'imap.studio.example', ATLAS_IMAP_USER: 'atlas@studio.example', ATLAS_IMAP_MAILBOX: 'Atlas',
  ATLAS_SMTP_HOST: 'smtp.studio.example', ATLAS_SMTP_USER: 'atlas@studio.example',
  CLAMD_HOST: '127.0.0.1', CLAMD_PORT: '3310',
  PATH: '/nonexistent', SPAWN_AGENT_BIN: 'claude',
}

function describeFor(env: Record<string, string>) {
  return describeConnections(env, createProviderRegistry({ env }).status())
}

describe('the connections at a glance', () => {
  it('lists every connection once, in order, and never a secret', () => {
    const items = describeFor(ENV)
    expect(items.map(item => item.name)).toEqual([...CONNECTION_NAMES])
    const text = JSON.stringify(items)
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret)
    const imap = items.find(item => item.name === 'imap')!
    expect(imap).toMatchObject({ configured: true, testable: true })
    expect(Object.fromEntries(imap.fields.map(field => [field.label, field.value]))).toEqual({ Host: 'imap.studio.example', Port: '993', TLS: 'yes', User: 'atlas@studio.example', Password: 'set', Folder: 'Atlas' })
    expect(items.find(item => item.name === 'mistral')!.fields.find(field => field.label === 'Key')!.value).toBe('set')
    expect(items.find(item => item.name === 'openai')).toMatchObject({ configured: false, testable: false, note: 'no OPENAI_API_KEY' })
    expect(items.find(item => item.name === 'clamav')).toMatchObject({ configured: true, testable: true })
    expect(items.find(item => item.name === 'agent-cli')).toMatchObject({ configured: false, testable: false, note: '"claude" is not on PATH: set SPAWN_AGENT_BIN to the claude binary\'s path.' })
  })

  it('shows a configuration error as its message, naming the variable', () => {
    const items = describeFor({ ...ENV, ATLAS_IMAP_PORT: 'many' })
    expect(items.find(item => item.name === 'imap')).toMatchObject({ configured: false, testable: false, note: 'ATLAS_IMAP_PORT: expected a whole number ≥ 1, got "many"' })
  })

  it('says what is missing when nothing is configured', () => {
    const items = describeFor({})
    expect(items.find(item => item.name === 'imap')!.note).toMatch(/ATLAS_IMAP_HOST is not set/)
    expect(items.find(item => item.name === 'smtp')!.fields.find(field => field.label === 'Password')!.value).toBe('not set')
    expect(items.filter(item => item.testable)).toEqual([])
  })
})

describe('the connection tests\' rate limit', () => {
  it('lets so many tests through per person per window, then says when to come back', () => {
    let now = 1_000
    const limiter = createRateLimiter({ limit: 2, windowMs: 60_000, now: () => now })
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('b')]).toEqual([true, true, false, true])
    now += 30_000
    expect(limiter.retryAfterMs('a')).toBe(30_000)
    now += 30_001
    expect(limiter.take('a')).toBe(true)
  })
})
