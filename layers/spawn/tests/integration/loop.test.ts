// Closing the loop, on both databases, with the stand-in agent through the real engine: mail A
// for a tenant fails QA three times and escalates → a scar naming the failure, in the vector
// index; mail B, a similar request for the same tenant, is routed to the same agent and its
// spawn's system prompt file carries A's scar, the agent's persona, the tenant's mission brief
// and the reflex memory; the scar's recall counter moved; B's passed QA is a victory; a third,
// unrelated request (a quote, another agent's trade) is briefed without A's scar.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agents, agentsEvents, agentsHeartbeats } from '#db/schema/agents'
import { atlasSpawnLessons } from '#db/schema/atlas-spawn'
import { clients } from '#db/schema/clients'
import { learnLessons } from '#db/schema/learn'
import { memEmbeddings } from '#db/schema/mem'
import { findAgent } from '#layers/agents/core/registry'
import { renderTier } from '#layers/agents/core/persona'
import { seedAgents } from '#layers/agents/core/seed'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { getSpawn } from '#layers/spawn/core/queries'
import { spawnPaths } from '#layers/spawn/core/run-agent'
import { startEngine, type Engine } from '../fixtures/engine'
import { startQaSite, type QaSite } from '../fixtures/qa-site'
import { classifiedMessage, createTenant, inbox, spawnsOf } from '../fixtures/seed'

vi.setConfig({ testTimeout: 240_000 })

const MISSION = 'Acme sells garden furniture; the contact form is their only lead source, keep it working above all.'
const REFLEX = 'Run the tenant\'s smoke test before writing the result file'

describeOnBothDatabases('closing the loop: every spawn briefed, every outcome a lesson', (database) => {
  let engine: Engine
  let site: QaSite
  let tenant: { id: string, slug: string, name: string }
  const background: Promise<unknown>[] = []

  beforeAll(async () => {
    const { db } = database()
    await seedAgents(db)
    site = await startQaSite()
    engine = await startEngine(db, database().url, { SPAWN_SANDBOX: 'bwrap' })
    const reflexDir = join(engine.base, 'reflex')
    mkdirSync(reflexDir, { recursive: true })
    writeFileSync(join(reflexDir, 'MEMORY.md'), `# Reflex memory\n${REFLEX}\n`)
    engine.config = { ...engine.config, reflexDir, deployCommand: 'true' }
    tenant = await createTenant(db, { preprodUrl: site.url })
    await db.update(clients).set({ config: { preprodUrl: site.url, missionBrief: MISSION } }).where(eq(clients.id, tenant.id))
  })
  afterAll(async () => {
    await engine?.close()
    await site?.close()
  })

  const drain = (variant: string, extra: Record<string, string> = {}, hooks: { onTiming?: () => void } = {}) => engine.drain({
    env: { ...engine.env, STAND_IN_VARIANT: variant, ...extra },
    config: engine.config,
    embedder: offlineEmbedder(database().db),
    // No model: the importance stays empty for the later run (lesson-importance.ts).
    scoreImportance: async () => null,
    background: work => void background.push(work),
    onTiming: hooks.onTiming,
  })
  const systemPrompt = (spawnId: string) => readFileSync(spawnPaths(engine.config.tmpDir, spawnId).systemPromptFile, 'utf8')
  const counters = async (codename: string) =>
    (
      await database()
        .db.select({ spawnCount: agents.spawnCount, errorCount: agents.errorCount })
        .from(agents)
        .where(eq(agents.codename, codename))
    )[0]!

  it('turns an escalation into an indexed scar, briefs the similar request with it, and keeps it out of an unrelated one', async () => {
    const { db } = database()
    const agentBefore = await counters('planification')

    // Mail A: a chantier whose QA keeps failing (HTTP 500 on /broken) → three spawns, escalated.
    const a = await classifiedMessage(db, { intent: 'chantier', tenantId: tenant.id, subject: 'Le formulaire de contact renvoie une erreur 500', body: 'Bonjour, le formulaire de contact de notre site renvoie une erreur 500 depuis hier. Merci de corriger.' })
    await engine.cycle()
    const states: string[] = []
    const seen: Promise<void>[] = []
    await drain('chantier', { STAND_IN_ROUTES: '/broken', STAND_IN_NEVER_FIX: '1' }, {
      onTiming: () => void seen.push(db.select({ state: agentsHeartbeats.state }).from(agentsHeartbeats).where(eq(agentsHeartbeats.agent, 'planification')).then(([row]) => void states.push(row?.state ?? 'none'))),
    })
    await Promise.all(seen)
    expect(await inbox(db, a)).toMatchObject({ status: 'escalated' })
    const spawnsA = await spawnsOf(db, a)
    expect(spawnsA.map(s => [s.iteration, s.outcome, s.agentCodename, s.promptDomain])).toEqual([
      [1, 'qa_failed', 'planification', 'chantier'], [2, 'qa_failed', 'planification', 'chantier'], [3, 'escalated', 'planification', 'chantier'],
    ])
    // The routed agent's counters, activity events and heartbeats moved: working while it ran, idle after.
    expect(await counters('planification')).toEqual({ spawnCount: agentBefore.spawnCount + 3, errorCount: agentBefore.errorCount })
    expect(states).toEqual(['working', 'working', 'working'])
    const [beat] = await db.select().from(agentsHeartbeats).where(eq(agentsHeartbeats.agent, 'planification'))
    expect(beat).toMatchObject({ state: 'idle', detail: expect.stringContaining(`message #${a}, spawn 3 (escalated)`) })
    const events = await db.select({ type: agentsEvents.eventType }).from(agentsEvents)
      .where(and(eq(agentsEvents.agent, 'planification'), sql`${agentsEvents.payload}->>'messageId' = ${String(a)}`))
    expect(events.map(e => e.type).sort()).toEqual(['spawn_ended', 'spawn_ended', 'spawn_ended', 'spawn_started', 'spawn_started', 'spawn_started'])
    // Every spawn of A was briefed: persona, mission brief, reflex memory, within the budget; a re-spawn too.
    const persona = renderTier(await findAgent(db, 'planification'), 'metier', 'en')
    for (const spawn of spawnsA) {
      const text = systemPrompt(spawn.id)
      expect(text).toContain(persona)
      expect(text).toContain(MISSION)
      expect(text).toContain(REFLEX)
      expect(spawn.briefingTokens).toBeGreaterThan(0)
      expect(spawn.briefingTokens).toBeLessThanOrEqual(spawn.briefingBudget!)
    }

    // The scar: naming the failure, with its agent, tenant, tags and source spawn, unscored, indexed at once.
    await Promise.all(background)
    const [scar] = await db.select().from(learnLessons).where(eq(learnLessons.sourceSpawnId, spawnsA[2]!.id))
    expect(scar).toMatchObject({ kind: 'failure', agent: 'planification', tenantId: tenant.id, importance: null, recordedBy: 'atlas-spawn-worker', recallCount: 0 })
    expect(scar!.title).toContain('QA still failing after 3 iteration(s)')
    expect(scar!.description).toMatch(/HTTP 500 at .*\/broken/)
    expect(scar!.tags).toEqual(expect.arrayContaining(['chantier', 'escalated', tenant.slug, 'qa:application']))
    const indexed = await db.select({ id: memEmbeddings.id }).from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'scar'), eq(memEmbeddings.sourceId, String(scar!.id))))
    expect(indexed.length).toBeGreaterThan(0)

    // Mail B: similar, same tenant → same agent; its system prompt file carries A's scar; QA passes → a victory.
    const b = await classifiedMessage(db, { intent: 'chantier', tenantId: tenant.id, subject: 'Erreur 500 sur le formulaire de contact', body: 'Bonjour, notre formulaire de contact affiche encore une erreur 500. Pouvez-vous corriger ?' })
    await engine.cycle()
    await drain('chantier', { STAND_IN_ROUTES: '/' })
    expect(await inbox(db, b)).toMatchObject({ status: 'actioned' })
    const [spawnB] = await spawnsOf(db, b)
    expect(spawnB!.agentCodename).toBe('planification')
    const promptB = systemPrompt(spawnB!.id)
    expect(promptB).toContain(scar!.title)
    expect(promptB).toContain(persona)
    expect(promptB).toContain(MISSION)
    expect(promptB).toContain(`## Your briefing (agent planification)`)
    expect(spawnB!.briefing).toBe(promptB.slice(promptB.indexOf(persona)))
    // Recorded per spawn, and the scar's recall counter moved.
    const links = await db.select().from(atlasSpawnLessons).where(eq(atlasSpawnLessons.spawnId, spawnB!.id))
    expect(links).toContainEqual({ spawnId: spawnB!.id, lessonId: scar!.id, rank: expect.any(Number), origin: 'own' })
    const [after] = await db.select().from(learnLessons).where(eq(learnLessons.id, scar!.id))
    expect(after!.recallCount).toBe(1)
    expect(after!.lastRecalledAt).not.toBeNull()
    // The spawn detail API's data: agent, briefing figures, the lessons carried and produced.
    await Promise.all(background)
    const detail = await getSpawn(db, spawnB!.id)
    expect(detail).toMatchObject({ agent: 'planification', promptDomain: 'chantier', briefing: { tokens: spawnB!.briefingTokens, budget: engine.config.briefingBudget }, briefingText: spawnB!.briefing })
    expect(detail!.lessonsInjected).toContainEqual(expect.objectContaining({ id: scar!.id, kind: 'scar', origin: 'own' }))
    expect(detail!.lessonsProduced).toEqual([expect.objectContaining({ kind: 'victory', agent: 'planification' })])
    expect((await getSpawn(db, spawnsA[2]!.id))!.lessonsProduced).toEqual([expect.objectContaining({ id: scar!.id, kind: 'scar' })])

    // A third, unrelated request (a quote: the finances agent's trade) is briefed without A's scar.
    const c = await classifiedMessage(db, { intent: 'negociation', tenantId: tenant.id, subject: 'Devis pour une campagne d\'affichage', body: 'Pourriez-vous nous envoyer un devis pour trois affiches au printemps ?' })
    await engine.cycle()
    await drain('success')
    const [spawnC] = await spawnsOf(db, c)
    expect(spawnC!.agentCodename).toBe('finances')
    const promptC = systemPrompt(spawnC!.id)
    expect(promptC).toContain(MISSION)
    expect(promptC).not.toContain(scar!.title)
    expect(
      await db
        .select()
        .from(atlasSpawnLessons)
        .where(and(eq(atlasSpawnLessons.spawnId, spawnC!.id), eq(atlasSpawnLessons.lessonId, scar!.id))),
    ).toEqual([])
    expect((await db.select().from(learnLessons).where(eq(learnLessons.id, scar!.id)))[0]!.recallCount).toBe(1)
  })

  it('briefs without the roster: the spawn runs unrouted and says why', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'run' })
    await db.update(agents).set({ active: 0 }).where(eq(agents.codename, 'orchestrator'))
    await db.update(agents).set({ active: 0 }).where(sql`${agents.promptDomains} like '%run%'`)
    try {
      await engine.cycle()
      const before = engine.logs.length
      await drain('success')
      const [spawn] = await spawnsOf(db, id)
      expect(spawn).toMatchObject({ outcome: 'actioned', agentCodename: null, briefing: null })
      expect(engine.logs.slice(before).join('\n')).toContain('the fallback agent is missing')
      expect(existsSync(spawnPaths(engine.config.tmpDir, spawn!.id).systemPromptFile)).toBe(true)
    }
    finally {
      await db.update(agents).set({ active: 1 })
    }
  })
})
