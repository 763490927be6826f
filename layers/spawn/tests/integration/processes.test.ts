// The spawn engine as separate processes on native PostgreSQL: two orchestrators and two
// workers at once never spawn the same message; a worker killed with SIGKILL mid-spawn takes
// its agent down with it (the wrapper sees its parent go) and leaves the message spawnable
// again at the next cycle (the holder of its lease is dead on this host), the audit trail telling what happened.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '#tests/helpers/databases'
import { startTs, type Running } from '#tests/helpers/processes'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { runOrchestratorCycle } from '#layers/spawn/core/orchestrator'
import { isAlive } from '#layers/spawn/core/processes'
import { openSpawnQueue, type SpawnQueue } from '#layers/spawn/core/queue'
import { STAND_IN_AGENT } from '../fixtures/wrapper'
import { actions, audits, classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

const ORCHESTRATE = 'layers/spawn/tests/fixtures/orchestrate.ts'
const WORKER = 'automates/atlas-spawn-worker.ts'

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

describe('Atlas spawn engine as separate processes [native]', { timeout: 180_000 }, () => {
  let database: TestDatabase
  let base: string
  let env: Record<string, string>
  let queue: SpawnQueue
  const children: Running[] = []

  beforeAll(async () => {
    database = await createTestDatabase('native', { max: 5 })
    base = mkdtempSync(join(tmpdir(), 'spawn-procs-'))
    mkdirSync(join(base, 'work'))
    env = {
      DATABASE_URL: database.url,
      SPAWN_AGENT_BIN: STAND_IN_AGENT,
      SPAWN_WORKDIR: join(base, 'work'),
      SPAWN_LOG_DIR: join(base, 'logs'),
      ATLAS_TMP_DIR: join(base, 'tmp'),
      SPAWN_POLL_MS: '150',
      SPAWN_KILL_GRACE_MS: '500',
      SPAWN_LEASE_TTL_MS: '2000',
      SPAWN_HOST_CONCURRENCY: '2',
      SPAWN_GLOBAL_CONCURRENCY: '2',
      STAND_IN_LINGER_MS: '60000',
      STAND_IN_VARIANT: 'success',
      INTERNAL_TEAM_EMAILS: 'team@studio.example',
    }
    queue = await openSpawnQueue({ connectionString: database.url })
  })
  afterAll(async () => {
    for (const child of children) child.child.kill('SIGKILL')
    await queue?.stop()
    await database?.close()
    if (base) rmSync(base, { recursive: true, force: true })
  })

  it('the automates through the supervision wrapper: the kill switch says so and queues nothing; bad flags exit 2', async () => {
    const { db } = database
    const id = await classifiedMessage(db, { intent: 'run', subject: 'Kill switch' })
    const off = await startTs('automates/run.ts', ['atlas-spawn'], { env: { ...env, ATLAS_SPAWN_DISABLED: '1' } }).exited
    expect(off.code).toBe(0)
    expect(off.output).toContain('the spawn engine is disabled (ATLAS_SPAWN_DISABLED=1)')
    const worker = await startTs('automates/run.ts', ['atlas-spawn-worker'], { env: { ...env, ATLAS_SPAWN_DISABLED: '1' } }).exited
    expect(worker.code).toBe(0)
    expect(worker.output).toContain('ATLAS_SPAWN_DISABLED=1')
    expect((await inbox(db, id)).status).toBe('classified')
    expect(await spawnsOf(db, id)).toEqual([])
    const bad = await startTs('automates/run.ts', ['atlas-spawn', '--limit', 'many'], { env }).exited
    expect(bad.code).toBe(2)
    expect(bad.output).toContain('--limit must be a whole number')
    const badConfig = await startTs('automates/run.ts', ['atlas-spawn-worker'], { env: { ...env, SPAWN_TIMEOUT_SEC: 'forever' } }).exited
    expect(badConfig.code).toBe(2)
    expect(badConfig.output).toContain('SPAWN_TIMEOUT_SEC')
    // Switched on again, the orchestrator automate queues it.
    const on = await startTs('automates/run.ts', ['atlas-spawn', '--json'], { env }).exited
    expect(on.code).toBe(0)
    expect((await inbox(db, id)).status).toBe('spawn_queued')
    const drained = await startTs('automates/run.ts', ['atlas-spawn-worker'], { env: { ...env, STAND_IN_VARIANT: 'fast' } }).exited
    expect(drained.code).toBe(0)
    expect((await inbox(db, id)).status).toBe('actioned')
  })

  it('two orchestrators and two workers at once never spawn the same message', async () => {
    const { db } = database
    const ids: number[] = []
    for (let i = 0; i < 6; i++) ids.push(await classifiedMessage(db, { intent: 'question', subject: `Question ${i}` }))
    const workers = [startTs(WORKER, ['--forever'], { env }), startTs(WORKER, ['--forever'], { env })]
    const orchestrators = [startTs(ORCHESTRATE, ['--cycles', '40', '--interval-ms', '250'], { env }), startTs(ORCHESTRATE, ['--cycles', '40', '--interval-ms', '250'], { env })]
    children.push(...workers, ...orchestrators)
    await until(async () => {
      const rows = await db.execute<{ n: number }>(sql`select count(*)::int as n from atlas_inbox where message_id in ${sql.raw(`(${ids.join(',')})`)} and status = 'actioned'`)
      return rows[0]!.n === ids.length
    }, 'every message actioned', 150_000)
    for (const orchestrator of orchestrators) orchestrator.child.kill('SIGTERM')
    for (const worker of workers) worker.child.kill('SIGTERM')
    await Promise.all([...workers, ...orchestrators].map(p => p.exited))
    for (const id of ids) {
      const trail = await actions(db, id)
      expect(trail.filter(a => a === 'spawn_started')).toHaveLength(1)
      expect(trail.filter(a => a === 'spawn_completed')).toHaveLength(1)
      expect(await spawnsOf(db, id)).toHaveLength(1)
    }
    // Each spawn's events are whole (live rows = the spawn's own count).
    const gaps = await db.execute<{ n: number }>(sql`
      select count(*)::int as n from atlas_spawns s
      where s.message_id in ${sql.raw(`(${ids.join(',')})`)} and s.event_count <> (select count(*) from atlas_spawn_events e where e.spawn_id = s.id)`)
    expect(gaps[0]!.n).toBe(0)
  })

  it('a worker killed with SIGKILL mid-spawn leaves the message re-spawnable at the next cycle (the holder of its lease is dead on this host), the audit telling what happened', async () => {
    const { db } = database
    const id = await classifiedMessage(db, { intent: 'run', subject: 'Killed mid-spawn' })
    // The default recent window (an hour): a lost spawn does not hold the message back.
    const config = readSpawnConfig(env)
    const cycle = () => runOrchestratorCycle({ ...spawnPorts, db, queue, config, actor: 'atlas-spawn', host: hostname(), pid: process.pid, log: () => {} })
    expect((await cycle()).queued.map(q => q.messageId)).toEqual([id])
    const victim = startTs(WORKER, ['--forever'], { env: { ...env, STAND_IN_VARIANT: 'hang', SPAWN_TIMEOUT_SEC: '600' } })
    children.push(victim)
    const spawn = await until(async () => {
      const [row] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.messageId, id))
      return row?.agentPid ? row : null
    }, 'the agent to start')
    expect((await inbox(db, id)).status).toBe('spawning')
    expect(isAlive(spawn.agentPid!)).toBe(true)
    victim.child.kill('SIGKILL')
    await victim.exited
    // The wrapper saw its parent go and took the agent's group down.
    await until(async () => !isAlive(spawn.agentPid!), 'the orphaned agent to be stopped', 20_000)
    // Its holder is a dead process of this host: the next cycle takes the lease at once, without
    // waiting for it to expire, and queues the message again.
    const recovered = await cycle()
    expect(recovered.recovered.lost).toEqual([id])
    expect(recovered.queued.map(q => q.messageId)).toEqual([id])
    const lost = (await audits(db, id)).find(a => a.action === 'spawn_failed')
    expect(lost?.details).toMatchObject({ reason: 'worker_lost', spawnId: spawn.id, worker: { host: hostname(), pid: victim.child.pid } })
    expect((await spawnsOf(db, id))[0]).toMatchObject({ status: 'lost', outcome: 'worker_lost' })
    const rescuer = startTs(WORKER, [], { env })
    children.push(rescuer)
    const done = await rescuer.exited
    expect(done.code).toBe(0)
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned' })
    expect(await actions(db, id)).toEqual(['spawn_started', 'spawn_failed', 'spawn_started', 'spawn_completed', 'actioned'])
    expect((await spawnsOf(db, id)).map(s => s.status)).toEqual(['lost', 'succeeded'])
  })
})
