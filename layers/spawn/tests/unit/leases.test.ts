// The spawn's lease keeper: a database that cannot be reached for a whole time to live means
// the leases have expired, and the worker is told to stop its agent.
import { describe, expect, it } from 'vitest'
import type { Db } from '#db/client'
import { keepLeases } from '#layers/spawn/core/leases'

/** A database handle whose every call fails, as when the server is unreachable. */
const unreachable = new Proxy({}, { get: () => () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) }) as unknown as Db

describe('the lease keeper', () => {
  it('gives the leases up when no heartbeat reached the database for a whole time to live', async () => {
    const beats: number[] = []
    const keeper = keepLeases(unreachable, [{ name: 'atlas-spawn:message:1', holder: 'h' }], 600, async () => void beats.push(1))
    try {
      expect(keeper.lost.aborted).toBe(false)
      await expect.poll(() => keeper.lost.aborted, { timeout: 5000 }).toBe(true)
      expect(String((keeper.lost.reason as Error).message)).toBe('no heartbeat reached the database for 1 s: the leases have expired')
      expect(beats.length).toBeGreaterThanOrEqual(2)
    }
    finally {
      keeper.stop()
    }
  })
})
