// The tenant's model, everywhere (issue 34, Deliver 2), through the collector on both
// databases: two clients, each with its own provider in clients.config.ai (OpenAI for one,
// Anthropic for the other), each provider a loopback server speaking its real API. Mail from
// each client's authenticated domain is collected over IMAP (Dovecot) and classified; the reply
// to each is drafted after its run. Each server sees its own client's requests only, the
// studio's default provider (the scripted Mistral) none, and every ledger row carries the tenant.
import { and, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { aiConsumption } from '#db/schema/ai'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { clients } from '#db/schema/clients'
import { createAiFacade } from '#layers/ai/core/facade'
import { anthropicLike, openAiStyle } from '#layers/ai/tests/fakes/providers'
import { startFakeServer, type FakeServer, type RecordedRequest } from '#layers/ai/tests/fakes/server'
import { draftReply } from '#layers/spawn/core/reply-draft'
import { collect } from '../../core/collector'
import { readAtlasConfig } from '../../core/config'
import { json } from '../fakes/model'
import { startCollectorWorld, type CollectorWorld } from '../fixtures/collector-world'
import { compose, uniqueId } from '../fixtures/mail'
import { createZone } from '../fixtures/sender-auth'

const OPENAI_KEY = 'tenant-test-openai-key'
const ANTHROPIC_KEY = 'tenant-test-anthropic-key'
const SIGNATURE = 'L\'équipe Synedre'

/** What each loopback model was asked: the prompts it got, as plain text. */
function asked(request: RecordedRequest): string {
  const messages = (request.body.messages as Array<{ content: unknown }> | undefined) ?? []
  return [JSON.stringify(request.body.system ?? ''), ...messages.map(m => JSON.stringify(m.content))].join('\n')
}

/** A reply draft is asked with the drafting system prompt; anything else here is a classification. */
const isDraft = (request: RecordedRequest) => asked(request).includes('You write the reply of a small software studio')
const reply = (who: string) => (request: RecordedRequest) => isDraft(request)
  ? `Madame, Monsieur, nous avons corrigé le formulaire. Le correctif est en ligne. Vous pouvez le vérifier dès maintenant. (${who})`
  : json('run', 0.9, `classified by ${who}`)

describeOnBothDatabases('the tenant\'s model, through the collector', (database, kind) => {
  let world: CollectorWorld
  let openai: FakeServer
  let anthropic: FakeServer
  const zone = createZone()
  const sign = { lune: zone.dkimKey('lune-tenant.example'), soleil: zone.dkimKey('soleil-tenant.example') }

  beforeAll(async () => {
    world = await startCollectorWorld(`tenant-models-${kind}`)
    openai = await startFakeServer(openAiStyle({ key: OPENAI_KEY, flavour: 'openai', reply: reply('openai') }))
    anthropic = await startFakeServer(anthropicLike({ key: ANTHROPIC_KEY, reply: reply('anthropic') }))
  }, 60_000)
  afterAll(async () => {
    await world?.close()
    await openai?.close()
    await anthropic?.close()
  })

  it('classifies and drafts each client\'s mail with its own provider, and the ledger rows carry the tenant', async () => {
    const { db } = database()
    const suffix = uniqueId('t').replace(/\W/g, '').slice(-8).toLowerCase()
    const [lune] = await db.insert(clients).values({ slug: `lune-${suffix}`, name: 'Cabinet Lune', domains: ['lune-tenant.example'], config: { ai: { provider: 'openai', model: 'gpt-4o-mini' } } }).returning()
    const [soleil] = await db.insert(clients).values({ slug: `soleil-${suffix}`, name: 'Atelier Soleil', domains: ['soleil-tenant.example'], config: { ai: { provider: 'anthropic' } } }).returning()
    const mailbox = `Tenants-${kind}`
    const ids = { lune: uniqueId('lune'), soleil: uniqueId('soleil') }
    await world.dovecot.append(world.user, mailbox, [
      await sign.lune(await compose({ messageId: ids.lune, from: 'Claire <claire@lune-tenant.example>', subject: 'Le formulaire de contact plante', text: 'Bonjour, le formulaire de contact de Lune renvoie une erreur.' })),
      await sign.soleil(await compose({ messageId: ids.soleil, from: 'Paul <paul@soleil-tenant.example>', subject: 'Le panier se vide', text: 'Bonjour, le panier de Soleil se vide tout seul.' })),
    ])
    // The facade as the automate builds it: every provider's address from the environment
    // (Mistral, the studio's default, is the collector world's scripted model).
    const ai = createAiFacade({
      env: { ...world.model.env, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${openai.url}/v1`, ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: anthropic.url },
      db, sleep: async () => {}, log: () => {},
    })
    const config = readAtlasConfig({ ...world.dovecot.env(world.user, mailbox), CLAMAV_DATABASE: world.clamdb.dir, ATLAS_OCR_ENABLED: '0', ATLAS_TMP_DIR: world.scratch })
    const report = await collect({ db, ai, config, log: () => {}, resolver: zone.resolver })
    expect(report).toMatchObject({ imap: 'ok', ingested: 2, pipeline: { classified: 2, failed: 0 } })

    const rows = await db
      .select({
        id: atlasMessages.id,
        messageId: atlasMessages.messageId,
        tenantId: atlasInbox.tenantId,
        provider: atlasInbox.provider,
        model: atlasInbox.model,
        reasoning: atlasInbox.reasoning,
        admission: atlasInbox.admission,
      })
      .from(atlasMessages)
      .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
      .where(eq(atlasMessages.mailbox, mailbox))
    const of = (messageId: string) => rows.find(row => row.messageId === messageId)!
    expect(of(ids.lune)).toMatchObject({ tenantId: lune!.id, admission: 'auto', provider: 'openai', model: 'gpt-4o-mini', reasoning: 'classified by openai' })
    expect(of(ids.soleil)).toMatchObject({ tenantId: soleil!.id, admission: 'auto', provider: 'anthropic', model: 'claude-haiku-4-5', reasoning: 'classified by anthropic' })

    // Each run did the work; the reply is drafted as the hub's route drafts it.
    for (const row of [of(ids.lune), of(ids.soleil)]) {
      await db.insert(atlasSpawns).values({ messageId: row.id, status: 'succeeded', outcome: 'actioned', queuedBy: 'atlas-spawn', endedAt: new Date(), result: { summary: 'The form validated a field twice; fixed and deployed.' } })
    }
    const drafts = {
      lune: await draftReply({ db, ai, signature: SIGNATURE }, { messageId: of(ids.lune).id, actor: 'sam@studio.example' }),
      soleil: await draftReply({ db, ai, signature: SIGNATURE }, { messageId: of(ids.soleil).id, actor: 'sam@studio.example' }),
    }
    expect(drafts.lune).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', offline: false })
    expect(drafts.lune.draft.body).toContain('(openai)')
    // Anthropic chose no model: generateContent's default for it.
    expect(drafts.soleil).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6', offline: false })
    expect(drafts.soleil.draft.body).toContain('(anthropic)')
    await ai.flush()

    // Each server saw its own client's mail only, classified then drafted; the default none.
    const openaiChats = openai.requests.filter(r => r.path === '/v1/chat/completions')
    const anthropicMessages = anthropic.requests.filter(r => r.path === '/v1/messages')
    expect(openaiChats.map(isDraft)).toEqual([false, true])
    expect(anthropicMessages.map(isDraft)).toEqual([false, true])
    expect(openaiChats.every(r => asked(r).includes('formulaire de contact de Lune') && !asked(r).includes('Soleil'))).toBe(true)
    expect(anthropicMessages.every(r => asked(r).includes('panier de Soleil') && !asked(r).includes('Lune'))).toBe(true)
    expect(world.model.requests()).toEqual([])

    const ledger = await db
      .select({
        feature: aiConsumption.feature,
        provider: aiConsumption.provider,
        tenant: aiConsumption.tenant,
        outcome: aiConsumption.outcome,
      })
      .from(aiConsumption)
      .where(
        and(
          inArray(aiConsumption.feature, ['atlas_classify', 'atlas_reply_draft']),
          inArray(aiConsumption.tenant, [lune!.slug, soleil!.slug]),
        ),
      )
    expect(ledger).toHaveLength(4)
    expect(ledger).toEqual(expect.arrayContaining([
      { feature: 'atlas_classify', provider: 'openai', tenant: lune!.slug, outcome: 'ok' },
      { feature: 'atlas_reply_draft', provider: 'openai', tenant: lune!.slug, outcome: 'ok' },
      { feature: 'atlas_classify', provider: 'anthropic', tenant: soleil!.slug, outcome: 'ok' },
      { feature: 'atlas_reply_draft', provider: 'anthropic', tenant: soleil!.slug, outcome: 'ok' },
    ]))
  }, 120_000)
})
