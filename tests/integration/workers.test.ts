import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { opsWorkers } from '#db/schema/index'
import { listHostWorkers, registerWorker, WORKER_VERSION } from '#layers/health/core/workers'

describeOnBothDatabases('spawn workers roll call', (database) => {
  it('registers, heartbeats and stops workers; a host is working, silent or idle from its workers', async () => {
    const { db } = database()
    const a1 = await registerWorker(db, { id: 'a1', host: 'host-a', pid: 101, mode: 'forever', heartbeatEveryMs: 1_000 })
    const a2 = await registerWorker(db, { id: 'a2', host: 'host-a', pid: 102, mode: 'forever', heartbeatEveryMs: 1_000 })
    const b1 = await registerWorker(db, { id: 'b1', host: 'host-b', pid: 201, mode: 'drain', heartbeatEveryMs: 1_000, version: '0.0.9' })
    await a1.beat(2)
    await b1.stop()
    let hosts = await listHostWorkers(db)
    expect(hosts.map(host => [host.host, host.state, host.running, host.versions])).toEqual([
      ['host-a', 'alive', 2, [WORKER_VERSION]],
      ['host-b', 'idle', 0, []],
    ])
    // 10 s later with no heartbeat: host-a's workers have missed three beats.
    hosts = await listHostWorkers(db, { now: new Date(Date.now() + 10_000) })
    expect(hosts.find(host => host.host === 'host-a')).toMatchObject({ state: 'silent', running: 0 })
    await a2.beat(1)
    hosts = await listHostWorkers(db, { now: new Date(Date.now() + 2_000) })
    expect(hosts.find(host => host.host === 'host-a')).toMatchObject({ state: 'alive', running: 3 })
    expect(hosts.find(host => host.host === 'host-a')!.workers.map(worker => [worker.id, worker.state]).sort()).toEqual([['a1', 'alive'], ['a2', 'alive']])
  })

  it('forgets workers not heard from in a week at the next registration, and lists only the last 24 hours', async () => {
    const { db } = database()
    await db.insert(opsWorkers).values([
      { id: 'old', host: 'host-old', pid: 1, version: 'x', mode: 'drain', heartbeatEveryMs: 60_000, heartbeatAt: sql`now() - interval '8 days'`, stoppedAt: sql`now() - interval '8 days'` },
      { id: 'yesterday', host: 'host-y', pid: 2, version: 'x', mode: 'forever', heartbeatEveryMs: 60_000, heartbeatAt: sql`now() - interval '2 days'` },
    ])
    expect((await listHostWorkers(db)).map(host => host.host)).not.toContain('host-y')
    await registerWorker(db, { id: 'new', host: 'host-new', pid: 3, mode: 'drain', heartbeatEveryMs: 60_000 })
    const ids = (await db.select({ id: opsWorkers.id }).from(opsWorkers)).map(row => row.id)
    expect(ids).not.toContain('old')
    expect(ids).toContain('yesterday')
    await expect(db.insert(opsWorkers).values({ id: 'bad', host: 'h', pid: 1, version: 'x', mode: 'drain', heartbeatEveryMs: 1, running: -1 })).rejects.toThrow()
  })
})
