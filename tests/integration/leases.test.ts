import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { acquireLease, heartbeatLease, readLease, releaseLease } from '../../layers/health/core/leases'

const owner = (holder: string, pid = 100) => ({ holder, host: 'test-host', pid })

describeOnBothDatabases('lease locks', (database) => {
  it('gives a lease to exactly one of many simultaneous claimants', async () => {
    const { db } = database()
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => acquireLease(db, 'race', owner(`c${i}`), 60_000)))
    expect(results.filter(Boolean)).toHaveLength(1)
    const winner = `c${results.indexOf(true)}`
    expect((await readLease(db, 'race'))?.holder).toBe(winner)
  })

  it('refuses a held lease, frees it on release, and only the holder may heartbeat or release it', async () => {
    const { db } = database()
    expect(await acquireLease(db, 'held', owner('a'), 60_000)).toBe(true)
    expect(await acquireLease(db, 'held', owner('b'), 60_000)).toBe(false)
    expect(await heartbeatLease(db, 'held', 'b', 60_000)).toBe(false)
    await releaseLease(db, 'held', 'b')
    expect((await readLease(db, 'held'))?.holder).toBe('a')
    expect(await heartbeatLease(db, 'held', 'a', 60_000)).toBe(true)
    await releaseLease(db, 'held', 'a')
    expect(await acquireLease(db, 'held', owner('b'), 60_000)).toBe(true)
  })

  it('lets another holder take an expired lease, and the old holder learns it lost it', async () => {
    const { db } = database()
    expect(await acquireLease(db, 'expiring', owner('dead', 1), 60_000)).toBe(true)
    await db.execute(sql`update ops_locks set expires_at = now() - interval '1 second', heartbeat_at = now() - interval '11 minutes' where name = 'expiring'`)
    expect(await acquireLease(db, 'expiring', owner('alive', 2), 60_000)).toBe(true)
    const lease = await readLease(db, 'expiring')
    expect(lease?.holder).toBe('alive')
    expect(lease?.pid).toBe(2)
    expect(Date.now() - lease!.heartbeatAt.getTime()).toBeLessThan(60_000)
    expect(await heartbeatLease(db, 'expiring', 'dead', 60_000)).toBe(false)
  })
})
