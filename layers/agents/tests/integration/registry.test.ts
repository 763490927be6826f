// The registry on both databases: the idempotent seed, the compatibility views, routing by
// prompt domain, the counters the spawn engine calls, heartbeats and the agent page.
import { beforeAll, expect, it } from 'vitest'
import { asc, eq, sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agents, agentsActivity, agentsExperience, agentsExperienceHistory, agentsHeartbeats, agentsRelationships } from '#db/schema/agents'
import { recordSpawnOutcome } from '../../core/counters'
import { recordHeartbeat } from '../../core/heartbeats'
import { agentDetail, agentsForDomain, listAgents, reactorNodes } from '../../core/registry'
import { ROSTER, RELATIONSHIPS } from '../../core/roster/index'
import { seedAgents } from '../../core/seed'
import { AgentsError } from '../../core/errors'

describeOnBothDatabases('agents registry', (database) => {
  beforeAll(async () => {
    const first = await seedAgents(database().db)
    expect(first).toEqual({ inserted: ROSTER.length, updated: 0, unchanged: 0, relationships: RELATIONSHIPS.length })
  })

  const snapshot = async () => {
    const { sql: raw } = database()
    return {
      agents: await raw`select * from agents order by id`,
      relationships: await raw`select * from agents_relationships order by id`,
      experience: await raw`select * from agents_experience order by agent`,
    }
  }

  it('the seed re-run changes nothing, not even updated_at', async () => {
    const before = await snapshot()
    expect(before.agents).toHaveLength(ROSTER.length)
    const again = await seedAgents(database().db)
    expect(again).toEqual({ inserted: 0, updated: 0, unchanged: ROSTER.length, relationships: 0 })
    expect(await snapshot()).toEqual(before)
  })

  it('restores a seeded column edited by hand, and leaves the runtime columns alone', async () => {
    const { db } = database()
    await db.update(agents).set({ nickname: 'Hacked', active: 0 }).where(eq(agents.codename, 'podcast'))
    await recordSpawnOutcome(db, 'podcast', 'failed')
    const outcome = await seedAgents(db)
    expect(outcome).toMatchObject({ inserted: 0, updated: 1 })
    const [row] = await db.select().from(agents).where(eq(agents.codename, 'podcast'))
    expect(row).toMatchObject({ nickname: 'Schaeffer', active: 0, spawnCount: 1, errorCount: 1 })
    await db.update(agents).set({ active: 1 }).where(eq(agents.codename, 'podcast'))
  })

  it('the registry table and the compatibility view return the same rows and columns', async () => {
    const { sql: raw } = database()
    await recordSpawnOutcome(database().db, 'backend', 'completed')
    const table = await raw`select * from agents order by id`
    const view = await raw`select * from agent_profiles order by id`
    expect(view).toEqual(table)
    expect(table.length).toBe(ROSTER.length)
    const columns = async (name: string) => (await raw`select column_name, data_type from information_schema.columns where table_name = ${name} order by ordinal_position`).map(r => `${r.column_name}:${r.data_type}`)
    expect(await columns('agent_profiles')).toEqual(await columns('agents'))
  })

  it('the satellites\' compatibility views mirror their tables; writes through a view land in the table', async () => {
    const { db, sql: raw } = database()
    await recordHeartbeat(db, 'orchestrator', 'working', 'spawn 42')
    await raw`insert into agent_activity (agent, kind, summary) values ('orchestrator', 'briefing', 'through the view')`
    const pairs: [string, string, string][] = [
      ['agents_activity', 'agent_activity', 'id'],
      ['agents_heartbeats', 'agent_heartbeat', 'agent'],
      ['agents_relationships', 'agent_relationships', 'id'],
      ['agents_experience', 'agent_experience', 'agent'],
      ['agents_experience_history', 'agent_experience_history', 'id'],
    ]
    for (const [table, view, key] of pairs) {
      const t = await raw.unsafe(`select * from ${table} order by ${key}`)
      const v = await raw.unsafe(`select * from ${view} order by ${key}`)
      expect(v, view).toEqual(t)
      expect(t.length, table).toBeGreaterThan(0)
    }
    const [written] = await db.select().from(agentsActivity).where(eq(agentsActivity.summary, 'through the view'))
    expect(written).toMatchObject({ agent: 'orchestrator', kind: 'briefing' })
    // Events have no legacy view (as in the seed).
    const views = (await raw`select table_name from information_schema.views where table_name like 'agent%' order by table_name`).map(r => r.table_name)
    expect(views).toEqual(['agent_activity', 'agent_experience', 'agent_experience_history', 'agent_heartbeat', 'agent_profiles', 'agent_relationships'])
  })

  it('routes by prompt domain: the active agents whose CSV holds that exact domain', async () => {
    const { db } = database()
    const faq = await agentsForDomain(db, 'faq')
    const expected = ROSTER.filter(a => a.domains.includes('faq')).map(a => a.codename).sort()
    expect(faq.map(a => a.codename).sort()).toEqual(expected)
    expect(await agentsForDomain(db, 'fa')).toEqual([])
    await db.update(agents).set({ active: 0 }).where(eq(agents.codename, 'faq'))
    expect((await agentsForDomain(db, 'FAQ')).map(a => a.codename)).not.toContain('faq')
    expect((await listAgents(db, { domain: 'faq' })).map(a => a.codename)).toContain('faq')
    await db.update(agents).set({ active: 1 }).where(eq(agents.codename, 'faq'))
    await expect(agentsForDomain(db, 'faq%')).rejects.toThrow(/prompt domain/)
    await expect(agentsForDomain(db, '%')).rejects.toBeInstanceOf(AgentsError)
  })

  it('filters the registry by family, stored ring and active', async () => {
    const { db } = database()
    expect((await listAgents(db, { family: 'direction' })).map(a => a.nickname).sort()).toEqual(['Atlas', 'Colbert', 'Hill', 'Winnicott'])
    expect(await listAgents(db, { family: 'cadrage', ring: 2 })).toHaveLength(2)
    expect(await listAgents(db, { ring: 3 })).toHaveLength(13)
    expect(await listAgents(db, { active: false })).toEqual([])
    await expect(listAgents(db, { family: 'marketing' })).rejects.toThrow(/family/)
    await expect(listAgents(db, { ring: 4 })).rejects.toThrow(/ring/)
  })

  it('recordSpawnOutcome counts spawns and errors, with an activity line and experience', async () => {
    const { db } = database()
    const [before] = await db.select().from(agents).where(eq(agents.codename, 'frontend'))
    expect(await recordSpawnOutcome(db, 'frontend', 'completed', { ref: 'message 7' })).toEqual({ codename: 'frontend', spawnCount: before!.spawnCount + 1, errorCount: before!.errorCount })
    expect(await recordSpawnOutcome(db, 'frontend', 'failed')).toEqual({ codename: 'frontend', spawnCount: before!.spawnCount + 2, errorCount: before!.errorCount + 1 })
    const [after] = await db.select().from(agents).where(eq(agents.codename, 'frontend'))
    expect(after!.lastErrorAt).not.toBeNull()
    const activity = await db.select().from(agentsActivity).where(eq(agentsActivity.agent, 'frontend')).orderBy(asc(agentsActivity.id))
    expect(activity.map(a => a.kind)).toEqual(['spawn_completed', 'spawn_failed'])
    expect(activity[0]!.ref).toBe('message 7')
    const [xp] = await db.select().from(agentsExperience).where(eq(agentsExperience.agent, 'frontend'))
    expect(xp).toMatchObject({ missions: 2, successes: 1, failures: 1, xp: 12 })
    expect(await db.select().from(agentsExperienceHistory).where(eq(agentsExperienceHistory.agent, 'frontend'))).toHaveLength(2)
  })

  it('recordSpawnOutcome refuses an unknown agent or outcome and changes nothing', async () => {
    const { db, sql: raw } = database()
    const before = await raw`select count(*)::int as n from agents_activity`
    await expect(recordSpawnOutcome(db, 'nobody', 'completed')).rejects.toMatchObject({ code: 'unknown_agent' })
    await expect(recordSpawnOutcome(db, 'frontend', 'exploded' as never)).rejects.toMatchObject({ code: 'bad_outcome' })
    expect(await raw`select count(*)::int as n from agents_activity`).toEqual(before)
  })

  it('heartbeats give the live state; the reactor places every active agent on its family\'s ring', async () => {
    const { db } = database()
    await recordHeartbeat(db, 'securite', 'error', 'scan failed')
    await expect(recordHeartbeat(db, 'securite', 'sleeping' as never)).rejects.toMatchObject({ code: 'bad_state' })
    await expect(recordHeartbeat(db, 'nobody', 'idle')).rejects.toMatchObject({ code: 'unknown_agent' })
    await db.insert(agentsHeartbeats).values({ agent: 'design', state: 'working', beatAt: new Date(Date.now() - 3_600_000) })
      .onConflictDoUpdate({ target: agentsHeartbeats.agent, set: { state: 'working', beatAt: new Date(Date.now() - 3_600_000) } })
    const nodes = await reactorNodes(db)
    expect(nodes).toHaveLength(ROSTER.length)
    const byCode = new Map(nodes.map(n => [n.codename, n]))
    expect(byCode.get('securite')!.state).toBe('error')
    expect(byCode.get('design')!.state).toBe('silent')
    expect(byCode.get('podcast')!.state).toBe('dormant')
    for (const node of nodes) expect(node.ring, node.codename).toBe({ direction: 1, cadrage: 2, execution: 2, validation: 3 }[node.family])
    // Marco Polo is stored on ring 2 and Gauss on ring 1; both are drawn on ring 2.
    expect(byCode.get('veille')!.ring).toBe(2)
    expect(byCode.get('donnees')!.ring).toBe(2)
    await db.update(agents).set({ active: 0 }).where(eq(agents.codename, 'podcast'))
    expect((await reactorNodes(db)).map(n => n.codename)).not.toContain('podcast')
    await db.update(agents).set({ active: 1 }).where(eq(agents.codename, 'podcast'))
  })

  it('the agent page: identity, tiers with token counts, activity and relationships both ways', async () => {
    const { db } = database()
    const detail = await agentDetail(db, 'securite')
    expect(detail.agent.nickname).toBe('Mitnick')
    expect(detail.tiers.en.map(t => t.tier)).toEqual(['core', 'metier', 'full'])
    expect(detail.tiers.en.every(t => t.tokens > 0.8 * t.budget && t.tokens < 1.2 * t.budget)).toBe(true)
    expect(detail.relationships.filter(r => r.direction === 'out').map(r => r.other.codename).sort()).toEqual(['backend', 'integration'])
    const atlas = await agentDetail(db, 'orchestrator')
    expect(atlas.relationships.filter(r => r.direction === 'in').length).toBeGreaterThan(5)
    expect(atlas.activity.length).toBeGreaterThan(0)
    await expect(agentDetail(db, 'nobody')).rejects.toMatchObject({ code: 'unknown_agent' })
    const rels = await db.select().from(agentsRelationships)
    expect(rels).toHaveLength(RELATIONSHIPS.length)
  })

  it('the database refuses a non-kebab codename, an unknown family or a ring outside 1–3', async () => {
    const { db } = database()
    await expect(db.insert(agents).values({ codename: 'Bad Name', nickname: 'x' })).rejects.toThrow()
    await expect(db.insert(agents).values({ codename: 'ok-name', nickname: 'x', groupName: 'marketing' })).rejects.toThrow()
    await expect(db.insert(agents).values({ codename: 'ok-name', nickname: 'x', orbite: 4 })).rejects.toThrow()
    expect((await db.execute<{ n: number }>(sql`select count(*)::int as n from agents`))[0]!.n).toBe(ROSTER.length)
  })
})
