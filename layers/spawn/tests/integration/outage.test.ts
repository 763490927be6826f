// The spawn engine through a database outage (a restart cuts every connection for a moment):
// the event log keeps every event, stored once, whether a batch failed before reaching the
// database or after (its reply lost); the worker's loop outlives failed slot reads and goes
// on to run the queued spawn. The database is wrapped so that its first statements fail as a
// restart makes them fail; everything else is real (both databases, the stand-in agent).
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import type { Db } from '#db/client'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { seedAgents } from '#layers/agents/core/seed'
import { createEventSink } from '#layers/spawn/core/events'
import { runSpawnWorker } from '#layers/spawn/core/worker'
import { startEngine, type Engine } from '../fixtures/engine'
import { classifiedMessage, inbox } from '../fixtures/seed'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

vi.setConfig({ testTimeout: 120_000 })

/** The error a statement gets while PostgreSQL restarts (57P01 admin_shutdown). */
function restarting(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })
}

/**
 * `db` whose `execute` fails `failures` times as an outage would: `before` the statement ran,
 * or `after` it (committed, but the reply never came back).
 */
function flaky(db: Db, failures: number, when: 'before' | 'after', matches: (text: string) => boolean = () => true, failure: () => Error = restarting): { db: Db, failed: () => number } {
  let failed = 0
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property !== 'execute') return typeof value === 'function' ? value.bind(target) : value
      return async (query: Parameters<Db['execute']>[0]) => {
        const text = JSON.stringify(query)
        if (failed < failures && matches(text)) {
          failed += 1
          if (when === 'after') await target.execute(query)
          throw failure()
        }
        return await target.execute(query)
      }
    },
  })
  return { db: proxy, failed: () => failed }
}

describeOnBothDatabases('the spawn engine through a database outage', (database) => {
  let engine: Engine

  beforeAll(async () => {
    await seedAgents(database().db)
    engine = await startEngine(database().db, database().url, { SPAWN_SANDBOX: 'bwrap', STAND_IN_VARIANT: 'fast' })
  })
  afterAll(async () => {
    await engine?.close()
  })

  async function spawnRow(): Promise<{ spawnId: string, messageId: number }> {
    const messageId = await classifiedMessage(database().db, { intent: 'question', status: 'actioned' })
    const [row] = await database().db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'succeeded', queuedBy: 'test' }).returning({ id: atlasSpawns.id })
    return { spawnId: row!.id, messageId }
  }

  async function stored(spawnId: string) {
    const rows = await database().db.execute<{ seq: number }>(sql`select seq from atlas_spawn_events where spawn_id = ${spawnId}::uuid order by seq`)
    const [spawn] = await database().db.execute<{ event_count: number }>(sql`select event_count from atlas_spawns where id = ${spawnId}::uuid`)
    return { seqs: rows.map(row => Number(row.seq)), eventCount: Number(spawn!.event_count) }
  }

  it.each(['before', 'after'] as const)('keeps every event, once, when batches fail %s reaching the database', async (when) => {
    const spawn = await spawnRow()
    const outage = flaky(database().db, 3, when, text => text.includes('insert into atlas_spawn_events'))
    const logs: string[] = []
    const sink = createEventSink(outage.db, spawn, { batchSize: 2, flushMs: 20, log: line => void logs.push(line) })
    for (let i = 0; i < 7; i++) await sink.add({ type: 'assistant', message: { content: [{ type: 'text', text: `step ${i}` }] } })
    await sink.close()
    expect(outage.failed()).toBe(3)
    expect(await stored(spawn.spawnId)).toEqual({ seqs: [1, 2, 3, 4, 5, 6, 7], eventCount: 7 })
    expect(logs.some(line => line.includes('retrying'))).toBe(true)
    expect(logs.some(line => line.includes('not stored after'))).toBe(false)
  })

  it('gives a batch up, saying so, once the outage outlasts its retry window', async () => {
    const spawn = await spawnRow()
    const outage = flaky(database().db, 1000, 'before', text => text.includes('insert into atlas_spawn_events'))
    const logs: string[] = []
    const sink = createEventSink(outage.db, spawn, { batchSize: 1, retryForMs: 300, log: line => void logs.push(line) })
    await sink.add({ type: 'assistant', message: { content: [] } })
    await sink.close()
    expect((await stored(spawn.spawnId)).seqs).toEqual([])
    expect(logs.some(line => /1 event\(s\) not stored after \d+ attempt\(s\): terminating connection/.test(line))).toBe(true)
    expect(logs.some(line => line.includes('the event log is incomplete'))).toBe(true)
  })

  it('does not retry a statement the database refused (only a lost connection is worth waiting for)', async () => {
    const spawn = await spawnRow()
    const refused = () => Object.assign(new Error('insert or update violates foreign key constraint'), { code: '23503' })
    const outage = flaky(database().db, 1, 'before', text => text.includes('insert into atlas_spawn_events'), refused)
    const logs: string[] = []
    const sink = createEventSink(outage.db, spawn, { batchSize: 1, log: line => void logs.push(line) })
    await sink.add({ type: 'assistant', message: { content: [] } })
    await sink.close()
    expect(outage.failed()).toBe(1)
    expect(logs.some(line => line.includes('1 event(s) not stored after 1 attempt(s): insert or update violates foreign key constraint'))).toBe(true)
    expect(logs.some(line => line.includes('retrying'))).toBe(false)
  })

  it('a worker whose slot reads fail keeps looking, then runs the queued spawn', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question', subject: 'Through the outage' })
    expect((await engine.cycle()).queued.map(q => q.messageId)).toEqual([id])
    const outage = flaky(db, 4, 'before', text => text.includes('insert into ops_locks'))
    const stop = new AbortController()
    const logs: string[] = []
    const worker = runSpawnWorker({
      ...spawnPorts,
      db: outage.db, queue: engine.queue, config: engine.config, env: engine.env, mail: engine.mailer, host: 'outage-host', pid: process.pid,
      actor: 'atlas-spawn-worker', log: line => void logs.push(line), signal: stop.signal,
    }, { mode: 'forever' })
    const deadline = Date.now() + 90_000
    while ((await inbox(db, id)).status !== 'actioned' && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 100))
    stop.abort()
    const report = await worker
    expect(outage.failed()).toBe(4)
    expect(logs.filter(line => line.includes('the concurrency slots could not be read (terminating connection'))).toHaveLength(4)
    expect(report.outcomes).toEqual([expect.objectContaining({ messageId: id, outcome: 'actioned' })])
    expect((await inbox(db, id)).status).toBe('actioned')
  })
})
