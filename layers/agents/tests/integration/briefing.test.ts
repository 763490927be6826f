// The briefing with the real recall engine (offline embeddings) on both databases: the
// agent's own scars first, then global ones, never another agent's; the chantier brief; the
// user model's core slice; the tier's budget.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnLessons } from '#db/schema/learn'
import { memUserModel } from '#db/schema/mem'
import { atlasMessages } from '#db/schema/atlas'
import { workChantiers } from '#db/schema/work'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { formatBriefing, loadBriefing } from '../../core/briefing'
import { missionBriefFrom, scarRecallFrom, userCoreFrom } from '../../core/memory-adapters'
import { seedAgents } from '../../core/seed'

describeOnBothDatabases('agent briefing', (database) => {
  const reflexDir = mkdtempSync(join(tmpdir(), 'agents-reflex-'))
  let chantierId = ''
  beforeAll(async () => {
    const { db } = database()
    await seedAgents(db)
    await db.insert(learnLessons).values([
      { title: 'Secret leaked in a webhook log', description: 'A webhook handler logged the full payload with the signing secret.', checkAdded: 'Redact secrets in webhook logs', importance: 5, agent: 'securite' },
      { title: 'Webhook retried forever', description: 'A webhook without a retry cap hammered the client API after an outage.', checkAdded: 'Cap webhook retries', importance: 5, agent: null },
      { title: 'Webhook payload not validated', description: 'The webhook accepted an unvalidated payload and crashed on a missing field.', checkAdded: 'Validate webhook payloads', importance: 5, agent: null },
      { title: 'Webhook button misaligned', description: 'The webhook settings button overflowed on mobile.', checkAdded: 'Check the webhook page on mobile', importance: 9, agent: 'frontend' },
    ])
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir }, { sources: ['scar'] })
    const [message] = await db.insert(atlasMessages).values({ dedupeKey: 'agents-test-1', rawSha256: '0'.repeat(64), rawSize: 10, mailbox: 'INBOX' } as typeof atlasMessages.$inferInsert).returning({ id: atlasMessages.id })
    const [chantier] = await db.insert(workChantiers).values({ sourceMessageId: message!.id, lastMessageId: message!.id, title: 'Client portal hardening', brief: 'Harden the webhook endpoints of the client portal.', createdBy: 'test' }).returning({ id: workChantiers.id })
    chantierId = chantier!.id
    await db.insert(memUserModel).values({ subject: 'founder', communicationStyle: { tone: 'direct, short sentences' }, preferences: { language: 'French for clients' } })
  })
  afterAll(() => rmSync(reflexDir, { recursive: true, force: true }))

  const deps = () => {
    const { db } = database()
    return {
      db,
      recallScars: scarRecallFrom({ db, embedder: offlineEmbedder(db) }, { readOnly: true }),
      missionBrief: missionBriefFrom(db),
      userCore: userCoreFrom(db),
    }
  }

  it('serves the agent\'s own scars first, then global ones, never another agent\'s', async () => {
    const briefing = await loadBriefing(deps(), { codename: 'securite', task: 'webhook secret log retry payload', scars: 3 })
    expect(briefing.scars.map(s => s.origin)).toEqual(['own', 'global', 'global'])
    expect(briefing.scars[0]!.title).toBe('Secret leaked in a webhook log')
    expect(briefing.scars.map(s => s.title)).not.toContain('Webhook button misaligned')
    expect(briefing.text.indexOf('Secret leaked')).toBeLessThan(briefing.text.indexOf('Webhook retried forever') === -1 ? Infinity : briefing.text.indexOf('Webhook retried forever'))
    // The frontend's own scar must be relevant to the task: below the relevance floor (one
    // shared word of five, a distant meaning) the briefing drops it rather than serve noise.
    const unrelated = await loadBriefing(deps(), { codename: 'frontend', task: 'webhook secret log retry payload', scars: 3 })
    expect(unrelated.scars.map(s => s.title)).not.toContain('Webhook button misaligned')
    const frontend = await loadBriefing(deps(), { codename: 'frontend', task: 'webhook button retry payload', scars: 3 })
    expect(frontend.scars[0]).toMatchObject({ title: 'Webhook button misaligned', origin: 'own' })
    expect(frontend.scars.map(s => s.title)).not.toContain('Secret leaked in a webhook log')
    expect(frontend.nothingRecalled).toBe(false)
  })

  it('says "no prior knowledge found" when no lesson passes the relevance floor, rather than padding with weak ones', async () => {
    const briefing = await loadBriefing(deps(), { codename: 'securite', task: 'la recette de la tarte aux pommes', scars: 3 })
    expect(briefing).toMatchObject({ scars: [], nothingRecalled: true })
    expect(briefing.text).toContain('No prior knowledge found: no lesson passes the relevance floor for this task.')
  })

  it('adds the chantier brief when the task resolves to a project, and the user model\'s core slice', async () => {
    const briefing = await formatBriefing(deps(), { codename: 'backend', task: 'add retries to the webhook', project: chantierId })
    expect(briefing.tier).toBe('metier')
    expect(briefing.mission).toEqual({ title: 'Client portal hardening', brief: 'Harden the webhook endpoints of the client portal.' })
    expect(briefing.user).toContain('direct, short sentences')
    expect(briefing.text).toContain('## Mission brief')
    expect(briefing.text.startsWith(briefing.persona.text)).toBe(true)
    expect(briefing.persona.tokens).toBeGreaterThan(0.8 * 350)
    expect(briefing.persona.tokens).toBeLessThan(1.2 * 350)
    expect(briefing.tokens).toBeGreaterThan(briefing.persona.tokens)
    const unknownProject = await formatBriefing(deps(), { codename: 'backend', task: 'x', project: 'not-a-chantier' })
    expect(unknownProject.mission).toBeNull()
  })

  it('without a task: the tier alone (no recall), and an unknown agent is refused', async () => {
    const briefing = await loadBriefing({ ...deps(), recallScars: async () => Promise.reject(new Error('recall must not run')) }, { codename: 'orchestrator', tier: 'core', lang: 'fr' })
    expect(briefing.scars).toEqual([])
    expect(briefing.nothingRecalled).toBe(false)
    expect(briefing.text).not.toContain('Aucune connaissance antérieure')
    expect(briefing.persona.text).toContain('# Tu es Atlas')
    await expect(loadBriefing(deps(), { codename: 'nobody' })).rejects.toMatchObject({ code: 'unknown_agent' })
  })
})
