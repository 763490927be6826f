// The model test through the real AI facade against a loopback Mistral (one token, counted in
// the ledger under settings_connection_test, pinned: no failover) and against a closed port
// (a failure in words, never the key); and the first-run checklist read from a database that
// fills up item by item.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { aiConsumption, atlasMessages, clients, hubUsers } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import { createAiFacade } from '#layers/ai/core/facade'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { freePort } from '#layers/atlas/tests/fakes/ports'
import { CONNECTION_TESTED, readChecklist } from '../../core/checklist'
import { testConnection } from '../../core/connection-tests'
import { TEST_FEATURE } from '../../core/probes/model'

const actor = 'operator@studio.test'

describeOnBothDatabases('The model test and the first-run checklist', (database) => {
  let model: ScriptedModel
  beforeAll(async () => {
    model = await startScriptedModel()
    model.byDefault(() => 'ok')
  })
  afterAll(async () => {
    await model?.close()
  })

  it('asks the provider for one token through the facade, counted in the ledger', async () => {
    const { db } = database()
    const facade = createAiFacade({ env: model.env, db, log: () => {} })
    const result = await testConnection('mistral', { env: model.env, facade, actor })
    expect(result.ok, result.detail).toBe(true)
    expect(result.detail).toMatch(/^mistral-large-latest answered in \d+ ms/)
    expect(model.requests().at(-1)!.body).toMatchObject({ max_tokens: 1, model: 'mistral-large-latest' })
    await facade.flush()
    const rows = await db.select().from(aiConsumption).where(eq(aiConsumption.feature, TEST_FEATURE))
    expect(rows.map(row => [row.provider, row.actor])).toEqual([['mistral', actor]])
  })

  it('says what failed on a closed port, without the key, and fails over to nothing', async () => {
    const { db } = database()
    const key = 'mistral-Secret-Key-3381-ab'
    const env = { MISTRAL_API_KEY: key, MISTRAL_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`, ANTHROPIC_API_KEY: 'sk-ant-api03-must-not-be-called-here', ANTHROPIC_BASE_URL: model.env.MISTRAL_BASE_URL }
    const facade = createAiFacade({ env, db, log: () => {}, retry: { completion: { attempts: 1 } } })
    const before = model.requests().length
    const result = await testConnection('mistral', { env, facade, actor, deadlineMs: 5000 })
    expect(result.ok).toBe(false)
    expect(result.detail).toBe(`mistral could not be reached at ${env.MISTRAL_BASE_URL} (connection refused, DNS or TLS)`)
    expect(result.detail).not.toContain(key)
    // Pinned to the provider tested: Anthropic (configured here) is never asked in its place.
    expect(model.requests().length).toBe(before)
  })

  it('is not configured for an OpenAI-compatible server without a model', async () => {
    const { db } = database()
    const env = { OPENAI_COMPAT_BASE_URL: model.env.MISTRAL_BASE_URL }
    const result = await testConnection('openai-compat', { env, facade: createAiFacade({ env, db, log: () => {} }), actor })
    expect(result).toMatchObject({ ok: false, detail: 'not configured: OPENAI_COMPAT_MODEL is not set: no model to test' })
  })

  it('ticks each first-run item as the studio sets itself up', async () => {
    const { db } = database()
    const env = { PATH: '/nonexistent', SPAWN_AGENT_BIN: 'claude' }
    const providers = createAiFacade({ env, log: () => {} }).providers()
    const first = await readChecklist(db, env, providers)
    expect(first.done).toBe(false)
    expect(first.items.map(item => [item.id, item.done, item.to])).toEqual([
      ['founder', false, '/hub/account'],
      ['client', false, '/hub/clients'],
      ['mailbox', false, '/hub/settings'],
      ['model', false, '/hub/settings'],
      ['agent-cli', false, '/hub/settings'],
      ['first-mail', false, '/hub/atlas'],
    ])

    await db.insert(hubUsers).values({ email: 'founder@studio.test', name: 'Founder', role: 'founder', passwordHash: 'not-a-real-hash' })
    await db.insert(clients).values({ slug: 'acme', name: 'Acme' })
    await db.insert(atlasMessages).values({ dedupeKey: 'settings-checklist-1', rawSha256: '0'.repeat(64), rawSize: 10, mailbox: 'INBOX' } as typeof atlasMessages.$inferInsert)
    const imapEnv = { ...env, ATLAS_IMAP_HOST: '127.0.0.1', ATLAS_IMAP_USER: 'atlas@studio.test', ATLAS_IMAP_PASSWORD: 'imap-Secret-1' }
    const configured = await readChecklist(db, imapEnv, providers)
    expect(configured.items.filter(item => item.done).map(item => item.id)).toEqual(['founder', 'client', 'first-mail'])
    expect(configured.items.find(item => item.id === 'mailbox')!.detail).toBe('atlas@studio.test on 127.0.0.1: not reached yet (test it)')

    // Reached once: a successful test (its audit row), whatever the collector did since.
    await recordAudit(db, { actor, action: CONNECTION_TESTED, target: 'imap', details: { ok: false, detail: 'connection refused on 127.0.0.1:1143', elapsedMs: 3 } })
    expect((await readChecklist(db, imapEnv, providers)).items.find(item => item.id === 'mailbox')!.done).toBe(false)
    await recordAudit(db, { actor, action: CONNECTION_TESTED, target: 'imap', details: { ok: true, detail: 'logged in', elapsedMs: 30 } })
    expect((await readChecklist(db, imapEnv, providers)).items.find(item => item.id === 'mailbox')!.done).toBe(true)

    const fullEnv = { ...imapEnv, ...model.env, PATH: process.env.PATH, SPAWN_AGENT_BIN: process.execPath }
    const all = await readChecklist(db, fullEnv, createAiFacade({ env: fullEnv, log: () => {} }).providers())
    expect(all.items.filter(item => !item.done)).toEqual([])
    expect(all.done).toBe(true)
    expect(JSON.stringify(all)).not.toContain('imap-Secret-1')
  })
})
