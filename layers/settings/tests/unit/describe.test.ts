// What the settings page shows of each connection: read with the readers their users read
// with, secrets only as "set" / "not set", a configuration error as its message.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createProviderRegistry } from '#layers/ai/core/providers'
import { describeConnections } from '../../core/describe'
import { createRateLimiter } from '../../core/rate-limit'
import { CONNECTION_NAMES, ConnectionView } from '../../core/schemas'
import { catalog, expectSaid } from '#tests/helpers/catalogs'

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

const EN = catalog('en')

/** Environments that, between them, reach every branch the describer words. */
function everyCase(): ConnectionView[] {
  const bin = mkdtempSync(join(tmpdir(), 'settings-describe-'))
  writeFileSync(join(bin, 'claude'), '#!/bin/sh\n')
  chmodSync(join(bin, 'claude'), 0o755)
  return [
    describeFor(ENV),
    describeFor({}),
    describeFor({ ...ENV, ATLAS_IMAP_PORT: 'many', ATLAS_SMTP_PORT: 'many', SPAWN_SANDBOX: 'nowhere' }),
    describeFor({ ...ENV, INTERNAL_TEAM_EMAILS: 'a@studio.example', PATH: bin, SPAWN_AGENT_CREDENTIAL: 'SPAWN_TOKEN', SPAWN_TOKEN: 'x' }),
    describeFor({ ...ENV, INTERNAL_TEAM_EMAILS: 'a@studio.example,b@studio.example', ANTHROPIC_API_KEY: '', AI_AGENT_CLI: '1', ATLAS_OCR_ENABLED: 'off', OPENAI_COMPAT_BASE_URL: 'http://127.0.0.1:8000/v1' }),
    describeFor({ ...ENV, OPENAI_COMPAT_BASE_URL: 'http://127.0.0.1:8000/v1', OPENAI_COMPAT_MODEL: 'qwen', VOYAGE_API_KEY: 'voyage-key' }),
    describeConnections(ENV, []),
  ].flat()
}

describe('the connections in the reader\'s language', () => {
  const items = everyCase()
  const said = items.flatMap(item => [
    ...(item.labelKey ? [{ key: item.labelKey, english: item.label }] : []),
    ...(item.noteKey ? [{ key: item.noteKey, values: item.noteValues, english: item.note }] : []),
    ...item.fields.flatMap(field => [
      { key: `settings.connections.fields.${field.key}`, english: field.label },
      ...(field.valueKey ? [{ key: field.valueKey, values: field.valueValues, english: field.value }] : []),
    ]),
  ])

  it('answers in the shape the schema says', () => {
    for (const item of items) expect(ConnectionView.strict().parse(item)).toEqual(item)
  })

  it('gives, beside each English text it words itself, a key both catalogs hold whose English is that text', () => {
    expectSaid(said)
  })

  it('emits every connection message of the catalog in some case (the cases reach every branch)', () => {
    const emitted = new Set(said.map(({ key }) => key))
    const worded = [...EN.keys()].filter(key => /^settings\.connections\.(cards|fields|values|notes)\./.test(key))
    expect(worded.filter(key => !emitted.has(key))).toEqual([])
    expect(emitted).toContain('settings.connections.notConfigured')
    expect([...emitted].filter(key => key.startsWith('ai.providers.notes.'))).toEqual(expect.arrayContaining([
      'ai.providers.notes.noVariable', 'ai.providers.notes.agentCliWouldServe', 'ai.providers.notes.throughAgentCli', 'ai.providers.notes.embeddingsOnly',
    ]))
  })

  it('leaves a configuration error without a key: it is shown as written', () => {
    const imap = describeFor({ ...ENV, ATLAS_IMAP_PORT: 'many' }).find(item => item.name === 'imap')!
    expect(imap.noteKey).toBeUndefined()
    expect(imap.fields.find(field => field.key === 'port')).toEqual({ key: 'port', label: 'Port', value: 'many', variable: 'ATLAS_IMAP_PORT' })
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
