// Per-tenant provider selection on both databases: an active tenant's clients.config.ai
// applies; an inactive tenant's never does; an explicit provider wins.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { clients } from '#db/schema/index'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness } from '../fakes/harness'
import { noopLedger } from '../../core/ledger'
import { resolveTenantAi } from '../../core/tenant'

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet({ mistral: KEYS.MISTRAL_API_KEY, anthropic: KEYS.ANTHROPIC_API_KEY, openai: KEYS.OPENAI_API_KEY })
})
afterAll(async () => fleet.close())
beforeEach(() => fleet.reset())

describeOnBothDatabases('per-tenant AI provider', (database) => {
  beforeAll(async () => {
    await database().db.insert(clients).values([
      { slug: 'acme', name: 'Acme', config: { ai: { provider: 'anthropic', model: 'haiku' } } },
      { slug: 'dormant', name: 'Dormant', active: false, config: { ai: { provider: 'openai', model: 'gpt-4o' } } },
      { slug: 'plain', name: 'Plain', config: { preprodUrl: 'https://preprod.plain.test' } },
      { slug: 'model-only', name: 'Model only', config: { ai: { model: 'mistral-small-latest' } } },
      { slug: 'odd', name: 'Odd', config: { ai: { provider: 'gemini' } } },
    ])
  })

  it('resolves the tenant configuration, active tenants only', async () => {
    const { db } = database()
    expect(await resolveTenantAi(db, 'acme')).toEqual({ provider: 'anthropic', model: 'haiku' })
    expect(await resolveTenantAi(db, 'dormant')).toBeNull()
    expect(await resolveTenantAi(db, 'plain')).toBeNull()
    expect(await resolveTenantAi(db, 'model-only')).toEqual({ provider: 'mistral', model: 'mistral-small-latest' })
    expect(await resolveTenantAi(db, 'odd')).toBeNull()
    expect(await resolveTenantAi(db, 'nobody')).toBeNull()
    const [acme] = await db.select().from(clients).where(eq(clients.slug, 'acme'))
    expect(await resolveTenantAi(db, acme!.id)).toEqual({ provider: 'anthropic', model: 'haiku' })
  })

  it('routes generateContent by the tenant when no provider is given', async () => {
    const { ai } = harness(fleet.env(KEYS), { db: database().db, ledger: noopLedger })
    expect(await ai.generateContent({ prompt: 'p', feature: 'atlas_reply_draft', tenant: 'acme' })).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(fleet.anthropic.requests[0]!.body.model).toBe('claude-haiku-4-5')
    // Inactive: its configuration is never read → the sovereign default.
    expect(await ai.generateContent({ prompt: 'p', feature: 'atlas_reply_draft', tenant: 'dormant' })).toMatchObject({ provider: 'mistral', model: 'mistral-large-latest' })
    expect(fleet.openai.requests).toHaveLength(0)
    expect(await ai.generateContent({ prompt: 'p', feature: 'atlas_reply_draft', tenant: 'plain' })).toMatchObject({ provider: 'mistral', model: 'mistral-large-latest' })
    expect(await ai.generateContent({ prompt: 'p', feature: 'atlas_reply_draft', tenant: 'model-only' })).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest' })
    // An explicit provider wins over the tenant.
    expect(await ai.generateContent({ prompt: 'p', feature: 'atlas_reply_draft', tenant: 'acme', provider: 'openai' })).toMatchObject({ provider: 'openai' })
  })

  it('fails over from the tenant provider in the sovereign order, realigning the model', async () => {
    fleet.anthropic.respond(() => ({ status: 500, body: { type: 'error', error: { type: 'api_error', message: 'boom' } } }))
    const { ai } = harness(fleet.env(KEYS), { db: database().db, ledger: noopLedger, retry: { completion: { attempts: 1 } } })
    expect(await ai.generateContent({ prompt: 'p', feature: 'f', tenant: 'acme' })).toMatchObject({ provider: 'mistral', model: 'mistral-large-latest', failoverChain: ['anthropic:http_500'] })
  })

  it('routes complete() by the tenant too when the call names one', async () => {
    const { ai } = harness(fleet.env(KEYS), { db: database().db, ledger: noopLedger })
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p', tenant: 'acme' })).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(await ai.complete({ feature: 'atlas_classify', prompt: 'p', tenant: 'dormant' })).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest' })
  })
})
