// Recovery never runs a message twice at once: a spawn whose worker died on this host is not
// recorded lost (nor its message spawned again) while a process of that spawn still runs here
// (the agent in its TERM grace, stopped by its wrapper); once it is gone, the next recovery
// records the spawn lost as usual.
import { spawn, spawnSync } from 'node:child_process'
import { hostname } from 'node:os'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { acquireLease } from '#layers/health/core/leases'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { messageLeaseName } from '#layers/spawn/core/leases'
import { recover } from '#layers/spawn/core/orchestrator'
import { SPAWN_MARKER } from '#layers/spawn/core/processes'
import { openSpawnQueue, type SpawnQueue } from '#layers/spawn/core/queue'
import { classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

describeOnBothDatabases('recovering a spawn whose agent lingers on this host', (database) => {
  let queue: SpawnQueue

  beforeAll(async () => {
    queue = await openSpawnQueue({ connectionString: database().url })
  })
  afterAll(async () => {
    await queue?.stop()
  })

  it('waits for the spawn\'s processes to be gone before recording it lost', async () => {
    const { db } = database()
    const config = readSpawnConfig({ SPAWN_LEASE_TTL_MS: '5000' })
    const messageId = await classifiedMessage(db, { intent: 'question', status: 'spawning' })
    // The worker: a process of this host that has ended (its pid is free).
    const deadPid = spawnSync('/bin/true').pid!
    const [row] = await db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'running', queuedBy: 'test', host: hostname(), pid: deadPid, claimedAt: new Date() }).returning({ id: atlasSpawns.id })
    const spawnId = row!.id
    expect(await acquireLease(db, messageLeaseName(messageId), { holder: 'dead-worker', host: hostname(), pid: deadPid }, 60_000, { isAlive: () => true })).toBe(true)
    // Its agent, still running (as in its TERM grace), carrying the spawn's marker.
    const agent = spawn('sleep', ['60'], { env: { ...process.env, [SPAWN_MARKER]: spawnId }, stdio: 'ignore' })
    const exited = new Promise(resolve => agent.once('exit', resolve))
    const logs: string[] = []
    const deps = { ...spawnPorts, db, queue, config, actor: 'atlas-spawn', host: hostname(), pid: process.pid, log: (line: string) => void logs.push(line) }
    try {
      expect((await recover(deps)).lost).toEqual([])
      expect(logs.some(line => line.includes(`spawn ${spawnId} lost its worker, but 1 of its process(es) still run here (${agent.pid})`))).toBe(true)
      expect((await spawnsOf(db, messageId))[0]!.status).toBe('running')
      expect((await inbox(db, messageId)).status).toBe('spawning')
    }
    finally {
      agent.kill('SIGKILL')
      await exited
    }
    expect((await recover(deps)).lost).toEqual([messageId])
    expect((await spawnsOf(db, messageId))[0]).toMatchObject({ status: 'lost', outcome: 'worker_lost' })
    expect((await inbox(db, messageId)).status).toBe('classified')
  })
})
