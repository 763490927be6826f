// Iterations written by the spawn engine (issue 16, Deliver 2), on both databases, with the
// real engine in process (pg-boss, the pseudo-terminal wrapper, bubblewrap) and the stand-in
// agent: a chantier message promoted with a job and a task is spawned for that task (its
// briefing quoting the project's mission brief), and each
// attempt leaves one iteration under it (reasoning, action, observation, outcome), readable by
// the task's page, its timeline and the skill detector's query.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { seedAgents } from '#layers/agents/core/seed'
import { timelineSources } from '#layers/hub/core/timeline-sources'
import { recordSpawnIteration } from '#layers/spawn/core/iteration'
import { startEngine, type Engine } from '#layers/spawn/tests/fixtures/engine'
import { promoteDraft } from '../../core/drafts'
import { listItems } from '../../core/items'
import { listIterations, recentIterations } from '../../core/iterations'
import { entityTimeline } from '../../core/timeline'
import { ACTOR, recordFromMessage, worksite } from '../fixtures/world'

// Each spawn checks out a repository and starts a sandbox: slow on a shared 2-core machine.
vi.setConfig({ testTimeout: 120_000 })

describeOnBothDatabases('Worksites iterations from spawns', (database) => {
  let engine: Engine
  beforeAll(async () => {
    await seedAgents(database().db)
    engine = await startEngine(database().db, database().url, { SPAWN_SANDBOX: 'bwrap' })
  })
  afterAll(async () => {
    await engine?.close()
  })
  const variant = (name: string) => ({ env: { ...engine.env, STAND_IN_VARIANT: name } })

  it('spawns a promoted chantier for its first open task and writes the attempt\'s iteration under it', async () => {
    const { db } = database()
    const site = await worksite(db, 0)
    const { message, record } = await recordFromMessage(db, 'chantier', { subject: 'Le formulaire de contact renvoie une erreur' })
    await promoteDraft(db, record.id, { projectId: site.project.id, jobs: [{ title: 'Corriger le formulaire', tasks: ['Valider le téléphone', 'Tester l\'envoi'] }] }, ACTOR)
    const tasks = (await listItems(db, 'task', { chantierId: record.id, sort: 'position', limit: 10 })).items
    const cycle = await engine.cycle()
    const queued = cycle.queued.find(q => q.messageId === message.id)
    expect(queued).toBeDefined()
    const [spawn] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, queued!.spawnId))
    expect(spawn!.taskId).toBe(tasks[0]!.id)

    // No DEPLOY_COMMAND: the chantier's spawn is escalated after the agent, a failed attempt.
    await engine.drain(variant('fast'))
    const iterations = await listIterations(db, tasks[0]!.id)
    expect(iterations).toHaveLength(1)
    const [first] = iterations
    expect(first).toMatchObject({ taskId: tasks[0]!.id, spawnId: spawn!.id, step: 1, outcome: 'fail' })
    expect(first!.reasoning.length).toBeGreaterThan(0)
    expect(first!.action).toMatch(/^Tools: .*Bash/)
    expect(first!.observation).toMatch(/Result \(ok\): .+/)
    expect(first!.observation).toMatch(/DEPLOY_COMMAND/)
    expect(await listIterations(db, tasks[1]!.id)).toEqual([])
    // The briefing quoted the project's mission brief.
    const [ran] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, spawn!.id))
    expect(ran!.briefing).toContain('Le site vitrine du client.')
    // Written once: the engine's end, replayed, changes nothing.
    expect(await recordSpawnIteration(db, spawn!.id)).toBeNull()
    expect(await listIterations(db, tasks[0]!.id)).toHaveLength(1)
    const timeline = await entityTimeline(db, timelineSources, 'task', tasks[0]!.id)
    expect(timeline.map(item => item.kind)).toEqual(expect.arrayContaining(['iteration', 'spawn', 'message']))
  })

  it('writes a done iteration for an actioned attempt, which the skill detector\'s query reads', async () => {
    const { db } = database()
    const site = await worksite(db, 1)
    const { message } = await recordFromMessage(db, 'run', { subject: 'Vider le cache du site' })
    const since = new Date(Date.now() - 60_000)
    const cycle = await engine.cycle()
    const queued = cycle.queued.find(q => q.messageId === message.id)!
    // A spawn started for a task: the engine carries the task whatever the message's intent.
    await db.update(atlasSpawns).set({ taskId: site.tasks[0]!.id }).where(eq(atlasSpawns.id, queued.spawnId))
    const work = await engine.drain(variant('fast'))
    expect(work.outcomes.find(o => o.spawnId === queued.spawnId)?.outcome).toBe('actioned')
    const [iteration] = await listIterations(db, site.tasks[0]!.id)
    expect(iteration).toMatchObject({ spawnId: queued.spawnId, step: 1, outcome: 'done' })
    const recent = await recentIterations(db, { outcomes: ['done', 'pass'], since, limit: 50 })
    expect(recent.map(i => i.id)).toContain(iteration!.id)
  })
})
