import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { acquireLease, heartbeatLease, readLease, releaseLease } from '#layers/health/core/leases'

// This process by default: a lease whose holder is a dead process of the same host is taken at once.
const owner = (holder: string, pid = process.pid) => ({ holder, host: 'test-host', pid })

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

  it('takes at once a lease whose holder is a dead process of the same host, never a live one or another host\'s', async () => {
    const { db } = database()
    const dead = 2 ** 22 + 4321
    expect(await acquireLease(db, 'orphaned', owner('killed', dead), 60_000)).toBe(true)
    expect(await acquireLease(db, 'orphaned', { holder: 'elsewhere', host: 'other-host', pid: process.pid }, 60_000)).toBe(false)
    expect(await acquireLease(db, 'orphaned', owner('next'), 60_000, { isAlive: () => true })).toBe(false)
    expect(await acquireLease(db, 'orphaned', owner('next'), 60_000)).toBe(true)
    expect(await readLease(db, 'orphaned')).toMatchObject({ holder: 'next', host: 'test-host', pid: process.pid })
    expect(await heartbeatLease(db, 'orphaned', 'killed', 60_000)).toBe(false)
    // This process is alive: its own leases are never taken that way.
    expect(await acquireLease(db, 'orphaned', owner('again'), 60_000)).toBe(false)
  })
})
