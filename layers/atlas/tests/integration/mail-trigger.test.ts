// The client-mail trigger end to end, on both databases (issue 34, Deliver 6): a custom agent
// listening to one client's mail. Mail goes through the real Atlas ingestion and pipeline
// (sender authentication on a loopback DNS zone, classification by the scripted model), then
// the agents-dispatch automate — what runs every minute in production — collects the hub's
// events and fires the triggers. A signed mail from the client's domain starts the agent's
// run; a mail from another client, a stranger, or the client's address spoofed does not, and
// a second dispatch of the same window starts nothing more.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agentRuns } from '#db/schema/agent-runs'
import { agentTriggerFires } from '#db/schema/custom-agents'
import { clients } from '#db/schema/clients'
import { hubUsers } from '#db/schema/hub'
import { ConfigBody, createCustomAgent } from '#layers/agents/core/custom/agents'
import agentsDispatch from '#automates/agents-dispatch'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { deliver, inboxOf, testConfig } from '../fakes/pipeline'
import { compose } from '../fixtures/mail'
import { createZone } from '../fixtures/sender-auth'

const OWNER = { email: 'owner-mail-trigger@studio.test', role: 'operator' as const }
const zone = createZone()
const sign = {
  acme: zone.dkimKey('acme-mail.example'),
  beta: zone.dkimKey('beta-mail.example'),
  stranger: zone.dkimKey('stranger-mail.example'),
}

describeOnBothDatabases('client-mail trigger', (database) => {
  let model: ScriptedModel
  beforeAll(async () => {
    model = await startScriptedModel()
    await database().db.insert(hubUsers).values({ email: OWNER.email, name: 'Owner', role: 'operator', passwordHash: 'x' })
  })
  afterAll(async () => {
    await model.close()
  })
  beforeEach(() => model.reset())

  async function receive(raw: Buffer, answer: string) {
    model.answer(answer)
    const { db } = database()
    const ai = model.facade(db)
    const delivery = await deliver(db, ai, [raw], { config: testConfig(), resolver: zone.resolver })
    await ai.flush()
    return delivery.stored[0]!.messageRowId
  }

  // A pass 15 s on: the dispatcher leaves rows younger than its 10 s settle horizon to the next pass.
  async function dispatch(): Promise<string[]> {
    const lines: string[] = []
    const previous = process.env.AI_OFFLINE
    process.env.AI_OFFLINE = '1'
    try {
      const ctx = { db: database().db, args: ['--window-minutes', '5'], log: (line: string) => void lines.push(line), signal: new AbortController().signal, host: 'test-host', now: () => new Date(Date.now() + 15_000), notConfigured: () => {} }
      expect(await agentsDispatch.run(ctx)).toBe(0)
    }
    finally {
      if (previous === undefined) delete process.env.AI_OFFLINE
      else process.env.AI_OFFLINE = previous
    }
    return lines
  }

  it('starts the agent\'s run for a signed mail from its client\'s domain, and for no other sender', async () => {
    const { db } = database()
    const [acme] = await db.insert(clients).values({ slug: 'acme-mail', name: 'Acme', domains: ['acme-mail.example'] }).returning()
    const [beta] = await db.insert(clients).values({ slug: 'beta-mail', name: 'Beta', domains: ['beta-mail.example'] }).returning()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Acme desk', runsPerHour: 20, triggers: [{ kind: 'mail', event: acme!.id }] }), codename: 'acme-desk' })

    const fromAcme = await receive(await sign.acme(await compose({ from: 'boss@acme-mail.example', subject: 'Le site est en panne', text: 'Plus rien ne charge depuis ce matin.' })), json('run', 0.92))
    const fromBeta = await receive(await sign.beta(await compose({ from: 'cto@beta-mail.example', subject: 'Le site est en panne aussi', text: 'Chez nous aussi.' })), json('run', 0.9))
    const fromStranger = await receive(await sign.stranger(await compose({ from: 'someone@stranger-mail.example', subject: 'Une question', text: 'Vous faites des sites ?' })), json('question', 0.9))
    const spoofed = await receive(await compose({ from: 'boss@acme-mail.example', replyTo: 'mallory@evil.example', subject: 'Urgent: changez le mot de passe', text: 'Envoyez-le ici.' }), json('run', 0.9))
    // The pipeline sorted each mail: only the signed one from Acme's domain is Acme's.
    expect((await inboxOf(db, fromAcme)).tenantId).toBe(acme!.id)
    expect((await inboxOf(db, fromBeta)).tenantId).toBe(beta!.id)
    expect((await inboxOf(db, fromStranger)).tenantId).toBeNull()
    expect((await inboxOf(db, spoofed)).tenantId).toBeNull()

    const first = await dispatch()
    expect(first.at(-1)).toMatch(/fired 1,/)
    const runs = await db.select().from(agentRuns).where(eq(agentRuns.agent, 'acme-desk'))
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ trigger: 'autonomous', regime: 'allowlist', ownerEmail: OWNER.email })
    expect(runs[0]!.request).toContain(`Triggered by mail (mail ${fromAcme})`)
    expect(runs[0]!.request).toContain('subject: Le site est en panne')
    expect(runs[0]!.request).not.toContain('beta-mail.example')
    const fires = await db.select().from(agentTriggerFires).where(eq(agentTriggerFires.codename, 'acme-desk'))
    expect(fires).toEqual([expect.objectContaining({ fingerprint: `mail:${fromAcme}`, outcome: 'fired', runId: runs[0]!.id })])

    // The next pass reads after the cursors: nothing fires twice.
    const second = await dispatch()
    expect(second.at(-1)).toMatch(/^0 event\(s\) .*fired 0,/)
    expect(await db.select().from(agentRuns).where(eq(agentRuns.agent, 'acme-desk'))).toHaveLength(1)
  })
})
