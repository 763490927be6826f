// A worker SIGKILLed mid-spawn (the crontab's `atlas-spawn-worker` automate, a real process)
// leaves its automate lease, its slot leases and the message's lease behind, held by a dead
// pid on this host. The next worker run on the same host takes them at once (no wait for
// the 120 s lease to expire), records the spawn as lost, and spawns the message again.
import { hostname } from 'node:os'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs, startTs } from '#tests/helpers/processes'
import { eq } from 'drizzle-orm'
import { opsWorkers } from '#db/schema/index'
import { readLease } from '#layers/health/core/leases'
import { listHostWorkers } from '#layers/health/core/workers'
import { messageLeaseName } from '#layers/spawn/core/leases'
import { isAlive, spawnProcesses } from '#layers/spawn/core/processes'
import { startEngine, type Engine } from '../fixtures/engine'
import { audits, classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'

describeOnBothDatabases('A SIGKILLed spawn worker', (database) => {
  let engine: Engine
  beforeAll(async () => {
    // Leases as long as in production (the automate's is 120 s): only a dead holder frees them early.
    engine = await startEngine(database().db, database().url, { ATLAS_SMTP_HOST: '', SPAWN_LEASE_TTL_MS: '120000' })
  })
  afterAll(async () => {
    await engine?.close()
  })

  it('its message is spawned again at the next worker run on the same host, without waiting for the leases to expire', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question', subject: 'Killed worker' })
    await engine.cycle()
    const worker = startTs('automates/run.ts', ['atlas-spawn-worker'], { env: { ...engine.env, STAND_IN_VARIANT: 'hang' } })
    await expect.poll(async () => (await spawnsOf(db, id))[0]?.agentPid ?? null, { timeout: 60_000, interval: 100 }).not.toBeNull()
    worker.child.kill('SIGKILL')
    await worker.exited
    const [running] = await spawnsOf(db, id)
    expect(running).toMatchObject({ status: 'running', host: hostname(), pid: worker.child.pid })
    const held = await readLease(db, 'automate:atlas-spawn-worker')
    expect(held).toMatchObject({ host: hostname(), pid: worker.child.pid })
    expect(held!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 60_000)
    expect(await readLease(db, messageLeaseName(id))).toMatchObject({ host: hostname(), pid: worker.child.pid })

    const started = Date.now()
    const next = await runTs('automates/run.ts', ['atlas-spawn-worker'], { env: { ...engine.env, STAND_IN_VARIANT: 'fast' } })
    expect(next.code, next.output).toBe(0)
    expect(next.output).not.toContain('lease held')
    expect(next.output).toContain(`message #${id}: its worker was lost; spawned again now`)
    expect(Date.now() - started).toBeLessThan(60_000)
    expect(await inbox(db, id)).toMatchObject({ status: 'actioned' })
    const [lost, again] = await spawnsOf(db, id)
    expect(lost).toMatchObject({ status: 'lost', outcome: 'worker_lost', reason: expect.stringContaining('is dead (no such process on this host)') })
    expect(again).toMatchObject({ status: 'succeeded', outcome: 'actioned' })
    expect((await audits(db, id)).map(a => a.action)).toEqual(['spawn_started', 'spawn_failed', 'spawn_started', 'spawn_completed', 'actioned'])
    // The hung agent of the killed worker did not outlive it.
    await expect.poll(() => spawnProcesses({ spawnId: lost!.id }).length, { timeout: 15_000 }).toBe(0)
    expect(isAlive(lost!.agentPid!)).toBe(false)
    // The roll call: the killed worker never said it stopped, the next one did; once the
    // killed one has missed three heartbeats its host reads as silent.
    const workers = await db.select().from(opsWorkers).where(eq(opsWorkers.host, hostname()))
    const killed = workers.find(row => row.pid === worker.child.pid)
    expect(killed).toMatchObject({ stoppedAt: null, mode: 'drain' })
    expect(workers.filter(row => row.pid !== worker.child.pid && row.stoppedAt !== null).length).toBeGreaterThanOrEqual(1)
    const later = new Date(killed!.heartbeatAt.getTime() + 3 * killed!.heartbeatEveryMs + 1_000)
    const host = (await listHostWorkers(db, { now: later })).find(row => row.host === hostname())
    expect(host).toMatchObject({ state: 'silent', running: 0 })
    expect(host!.workers.find(row => row.id === killed!.id)?.state).toBe('silent')
  }, 150_000)
})
