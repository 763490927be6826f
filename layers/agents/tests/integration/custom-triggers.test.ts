// Custom agents' triggers on both databases (issue 21 Deliver 7, seed 003 §12.6, I7, I8): a
// schedule fires once per due time across two dispatchers; an event trigger with a filter
// fires only on matching events; an agent's own write does not wake it; the hourly cap and
// the kill switch hold (a running run is not touched); a mention in an instruction document
// or in a skill's body wakes the mentioned agent (a draft proposed by a run does not, nor a
// skill saved by the agent's own run; the same save is never fired twice). Runs are real engine runs (offline model).
import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { agentRuns } from '#db/schema/agent-runs'
import { agentTriggerFires } from '#db/schema/custom-agents'
import { hubUsers } from '#db/schema/hub'
import { skillVersions } from '#db/schema/skills'
import { workTransitions } from '#db/schema/worksites'
import { customRunContext } from '../../core/custom/access'
import { createCustomAgent, saveCustomAgent, ConfigBody, setKilled, customAgentView } from '../../core/custom/agents'
import { customToolRegistry } from '../../core/custom/delegation'
import { dispatchEvents, dispatchSchedules, type DispatchDeps } from '../../core/custom/dispatcher'
import { EVENT_SOURCES, readSource, type SourceCursor } from '../../core/custom/events'
import type { Db } from '#db/connection'
import { EVENT_SETTLE_MS } from '../../core/custom/event-cycle'
import { startRun, type EngineDeps } from '../../core/engine/loop'
import { createDocument } from '../../core/instructions/documents'
import { createSkill, saveSkill } from '#layers/skills/core/library'
import agentsDispatch from '#automates/agents-dispatch'

/** Every source's events after `since`, unsettled rows included (the dispatcher's cycle pages them; these tests read one window). */
async function collectEvents(db: Db, since: Date, limit = 500) {
  const start: SourceCursor = { at: since.toISOString(), id: 0 }
  const pages = await Promise.all(EVENT_SOURCES.map(source => readSource(db, source, start, { limit, horizon: null })))
  return pages.flatMap(page => page.events)
}

const OWNER = { email: 'owner-triggers@studio.test', role: 'operator' as const }

describeOnBothDatabases('custom agent triggers', (database) => {
  let engine: EngineDeps
  const dispatcher = (now: Date): DispatchDeps => ({
    db: database().db,
    now: () => now,
    launch: async ({ codename, request }) => (await startRun(engine, await customRunContext(engine.db, engine.registry, { codename, request, trigger: 'autonomous', surface: 'automate' }))).id,
  })

  beforeAll(async () => {
    const { db } = database()
    await db.insert(hubUsers).values({ email: OWNER.email, name: 'Owner', role: 'operator', passwordHash: 'x' })
    engine = testEngineDeps(db, { registry: customToolRegistry() })
  })

  it('fires a schedule once per due time across two dispatchers', async () => {
    const { db } = database()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Hourly', triggers: [{ kind: 'schedule', cron: '0 * * * *' }] }), codename: 'hourly-bot' })
    const at = new Date(Date.now() + 3600_000)
    at.setUTCMinutes(0, 30, 0)
    const [first, second] = await Promise.all([dispatchSchedules(dispatcher(at)), dispatchSchedules(dispatcher(at))])
    const outcomes = [...first!, ...second!].filter(r => r.codename === 'hourly-bot').map(r => r.outcome).sort()
    expect(outcomes).toEqual(['duplicate', 'fired'])
    // A minute later the same due time is not fired again; the next hour is.
    expect((await dispatchSchedules(dispatcher(new Date(at.getTime() + 60_000)))).filter(r => r.codename === 'hourly-bot').map(r => r.outcome)).toEqual(['duplicate'])
    const next = await dispatchSchedules(dispatcher(new Date(at.getTime() + 3600_000)))
    expect(next.filter(r => r.codename === 'hourly-bot').map(r => r.outcome)).toEqual(['fired'])
    const runs = await db.select().from(agentRuns).where(eq(agentRuns.agent, 'hourly-bot'))
    expect(runs).toHaveLength(2)
    expect(runs.every(run => run.trigger === 'autonomous' && run.regime === 'allowlist' && run.ownerEmail === OWNER.email)).toBe(true)
  })

  it('fires an event trigger only on matching events, never on the agent\'s own write', async () => {
    const { db } = database()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({
      nickname: 'Done watcher',
      runsPerHour: 20,
      triggers: [{ kind: 'event', event: 'work_item_status', filters: [{ field: 'status', op: 'eq', value: 'done' }, { field: 'status', op: 'changed' }, { field: 'entity', op: 'neq', value: 'project' }] }],
    }), codename: 'done-watcher' })
    const since = new Date(Date.now() - 1000)
    const item = '00000000-0000-4000-8000-0000000000a1'
    await db.insert(workTransitions).values([
      { entity: 'task', entityId: item, kind: 'transition', fromStatus: 'doing', toStatus: 'done', actor: 'person@studio.test' },
      { entity: 'task', entityId: item, kind: 'transition', fromStatus: 'todo', toStatus: 'doing', actor: 'person@studio.test' },
      { entity: 'project', entityId: item, kind: 'transition', fromStatus: 'doing', toStatus: 'done', actor: 'person@studio.test' },
    ])
    const results = (await dispatchEvents(dispatcher(new Date()), await collectEvents(db, since))).filter(r => r.codename === 'done-watcher')
    expect(results.map(r => r.outcome)).toEqual(['fired'])
    const [run] = await db.select().from(agentRuns).where(eq(agentRuns.id, results[0]!.runId!))
    expect(run!.request).toContain('status: done')

    // The agent's run marks a task done: the same trigger would match, but it is its own write.
    const since2 = new Date(Date.now() - 1000)
    await db.insert(workTransitions).values({ entity: 'task', entityId: item, kind: 'transition', fromStatus: 'doing', toStatus: 'done', actor: `agent-run:${run!.id}:${OWNER.email}` })
    const own = (await dispatchEvents(dispatcher(new Date()), await collectEvents(db, since2))).filter(r => r.codename === 'done-watcher')
    // The window overlaps the previous pass: the event already fired is a duplicate, not a second run.
    expect(own.map(r => r.outcome).sort()).toEqual(own.length === 2 ? ['duplicate', 'self'] : ['self'])
    expect(await db.select().from(agentRuns).where(eq(agentRuns.agent, 'done-watcher'))).toHaveLength(1)
  })

  it('holds the hourly cap and the kill switch without touching a running run', async () => {
    const { db } = database()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Capped', runsPerHour: 2, triggers: [{ kind: 'event', event: 'lesson_recorded', filters: [{ field: 'title', op: 'contains', value: 'deploy' }] }] }), codename: 'capped-bot' })
    const event = (id: string, title: string) => ({ kind: 'lesson_recorded' as const, id, actor: 'hub', agent: null, fields: { title } })
    const results = await dispatchEvents({ ...dispatcher(new Date()), concurrency: 1 }, [event('1', 'Deploy broke'), event('2', 'Nothing here'), event('3', 'Deploy again'), event('4', 'deploy thrice')])
    expect(results.filter(r => r.codename === 'capped-bot').map(r => r.outcome)).toEqual(['fired', 'fired', 'capped'])

    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Killable', triggers: [{ kind: 'event', event: 'lesson_recorded' }] }), codename: 'killable-bot' })
    const [running] = await db.insert(agentRuns).values({ surface: 'automate', trigger: 'autonomous', agent: 'killable-bot', actingEmail: OWNER.email, actingRole: 'operator', ownerEmail: OWNER.email, regime: 'allowlist', request: 'long work', context: {} }).returning()
    await setKilled(db, OWNER, 'killable-bot', true)
    const killed = await dispatchEvents(dispatcher(new Date()), [event('10', 'anything')])
    expect(killed.filter(r => r.codename === 'killable-bot').map(r => r.outcome)).toEqual(['killed'])
    const [still] = await db.select().from(agentRuns).where(eq(agentRuns.id, running!.id))
    expect(still!.status).toBe('running')
    await expect(customRunContext(db, engine.registry, { codename: 'killable-bot', request: 'x', trigger: 'interactive', surface: 'api' })).rejects.toMatchObject({ code: 'agent_killed' })
    await setKilled(db, OWNER, 'killable-bot', false)
    expect((await dispatchEvents(dispatcher(new Date()), [event('11', 'anything')])).filter(r => r.codename === 'killable-bot').map(r => r.outcome)).toEqual(['fired'])
  })

  it('wakes the agent mentioned in an instruction document', async () => {
    const { db } = database()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Mentioned', triggers: [{ kind: 'mention' }] }), codename: 'mention-bot' })
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Other', triggers: [{ kind: 'mention' }] }), codename: 'quiet-bot' })
    const since = new Date(Date.now() - 1000)
    await createDocument(db, OWNER.email, { title: 'Weekly', body: 'Ask @mention-bot to summarise the week. (quiet-bot is not mentioned; nor is mail@quiet-bot)' })
    const results = await dispatchEvents(dispatcher(new Date()), await collectEvents(db, since))
    expect(results.filter(r => r.outcome !== 'duplicate').map(r => `${r.codename}:${r.outcome}`)).toEqual(['mention-bot:fired'])
    const fires = await db.select().from(agentTriggerFires).where(eq(agentTriggerFires.codename, 'mention-bot'))
    expect(fires).toHaveLength(1)
    expect(fires[0]!.runId).toBe(results.find(r => r.codename === 'mention-bot')!.runId)
  })

  it('wakes the agent mentioned in a skill document, with the same dedup and self-write rules', async () => {
    const { db } = database()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Skill reader', triggers: [{ kind: 'mention' }] }), codename: 'skill-mention-bot' })
    const since = new Date(Date.now() - 1000)
    // A draft proposed by an agent's run is not a person's save: no wake-up until it is saved.
    const draft = await createSkill(db, OWNER, { name: 'mention-draft', description: 'A draft', body: 'Then ping @skill-mention-bot.' }, { origin: 'assistant', draft: true })
    const skillFires = (results: Awaited<ReturnType<typeof dispatchEvents>>) => results.filter(r => r.codename === 'skill-mention-bot').map(r => r.outcome)
    expect(skillFires(await dispatchEvents(dispatcher(new Date()), await collectEvents(db, since)))).toEqual([])
    await saveSkill(db, OWNER, draft.id, { description: 'A draft', body: 'Then ping @skill-mention-bot.' })
    const first = await dispatchEvents(dispatcher(new Date()), await collectEvents(db, since))
    expect(skillFires(first)).toEqual(['fired'])
    // The same save seen again (an overlapping window, a second dispatcher): a duplicate, never a second run.
    expect(skillFires(await dispatchEvents(dispatcher(new Date()), await collectEvents(db, since)))).toEqual(['duplicate'])
    // A skill written by the agent's own run does not wake it.
    const runId = first.find(r => r.codename === 'skill-mention-bot')!.runId!
    const later = new Date(Date.now() - 1)
    await db.insert(skillVersions).values({ skillId: draft.id, version: 99, description: 'A draft', body: 'Note for @skill-mention-bot', createdBy: `agent-run:${runId}:${OWNER.email}` })
    expect(skillFires(await dispatchEvents(dispatcher(new Date()), await collectEvents(db, later)))).toEqual(['self'])
    // A skill created by hand mentioning it, in a hub document a person wrote, wakes it again.
    await createSkill(db, OWNER, { name: 'mention-by-hand', description: 'By hand', body: 'Ask @skill-mention-bot for the figures.' })
    // (the agent's own write, seen again, stays recorded once: a duplicate)
    expect(skillFires(await dispatchEvents(dispatcher(new Date()), await collectEvents(db, later)))).toEqual(['duplicate', 'fired'])
    expect(await db.select().from(agentTriggerFires).where(eq(agentTriggerFires.codename, 'skill-mention-bot'))).toHaveLength(3)
  })

  it('keeps every save as a version and restores one', async () => {
    const { db } = database()
    const created = await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Versioned', triggers: [{ kind: 'schedule', cron: '0 9 * * *' }] }), codename: 'versioned-bot' })
    expect(created.versions.map(v => v.version)).toEqual([1])
    const saved = await saveCustomAgent(db, OWNER, 'versioned-bot', ConfigBody.parse({ nickname: 'Versioned v2', triggers: [{ kind: 'schedule', cron: '30 18 * * 5' }] }))
    expect(saved.agent.version).toBe(2)
    expect(saved.triggers.map(t => t.cron)).toEqual(['30 18 * * 5'])
    const restored = await saveCustomAgent(db, OWNER, 'versioned-bot', ConfigBody.parse({ nickname: 'Versioned v3' }))
    expect(restored.triggers).toEqual([])
    const { restoreCustomVersion } = await import('../../core/custom/agents')
    const back = await restoreCustomVersion(db, OWNER, 'versioned-bot', 1)
    expect(back.versions.map(v => v.version)).toEqual([4, 3, 2, 1])
    expect(back.agent.nickname).toBe('Versioned')
    expect(back.triggers.map(t => t.cron)).toEqual(['0 9 * * *'])
    await expect(customAgentView(db, { email: 'someone@studio.test', role: 'operator' }, 'versioned-bot')).rejects.toMatchObject({ status: 404 })
  })

  it('runs from the agents-dispatch automate, refusing a bad flag', async () => {
    const { db } = database()
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Automate', triggers: [{ kind: 'event', event: 'lesson_recorded', filters: [{ field: 'title', op: 'contains', value: 'automate-check' }] }] }), codename: 'automate-bot' })
    const { learnLessons } = await import('#db/schema/learn')
    await db.insert(learnLessons).values({ title: 'The automate-check lesson' })
    const previous = process.env.AI_OFFLINE
    process.env.AI_OFFLINE = '1'
    const lines: string[] = []
    // The clock past the settle delay: the lesson just written is old enough to be read.
    const ctx = (args: string[]) => ({ db, args, log: (line: string) => lines.push(line), signal: new AbortController().signal, host: 'test-host', now: () => new Date(Date.now() + EVENT_SETTLE_MS + 5000), notConfigured: () => {} })
    try {
      await expect(agentsDispatch.run(ctx(['--window-minutes', '0']))).rejects.toThrow('--window-minutes')
      expect(await agentsDispatch.run(ctx(['--window-minutes', '5']))).toBe(0)
      expect(await agentsDispatch.run(ctx(['--window-minutes', '5']))).toBe(0)
    }
    finally {
      if (previous === undefined) delete process.env.AI_OFFLINE
      else process.env.AI_OFFLINE = previous
    }
    expect(lines[0]).toMatch(/fired [1-9]/)
    // The second run starts after the cursors: nothing is read again.
    expect(lines[1]).toMatch(/^0 event\(s\) in 0 page\(s\) since the cursors; fired 0,/)
    expect(await db.select().from(agentRuns).where(eq(agentRuns.agent, 'automate-bot'))).toHaveLength(1)
  })
})
