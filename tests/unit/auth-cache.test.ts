// The auth middleware's memory (server/core/auth-cache.ts): bounded, expiring, and never
// keeping an account row read before the hub changed that account.
import { describe, expect, it } from 'vitest'
import { createExpiringCache, forgetSignedInUser, rememberedAccount, sessionExpiry } from '#server/core/auth-cache'
import type { HubUser } from '#db/schema/index'

const account = (version: number) => ({ id: 'u1', sessionVersion: version }) as HubUser

describe('the auth cache', () => {
  it('forgets entries at their expiry and the oldest past its size', () => {
    const cache = createExpiringCache<string, number>(2)
    cache.set('a', 1, 1000)
    expect(cache.get('a', 999)).toBe(1)
    expect(cache.get('a', 1000)).toBeUndefined()
    cache.set('a', 1, 5000)
    cache.set('b', 2, 5000)
    cache.set('c', 3, 5000)
    expect([cache.get('a', 0), cache.get('b', 0), cache.get('c', 0)]).toEqual([undefined, 2, 3])
  })

  it('never remembers a sealed cookie past its own age limit, nor one without a creation time', () => {
    expect(sessionExpiry(undefined, 3600, 10_000)).toBe(0)
    expect(sessionExpiry(1_000, 12 * 3600, 2_000)).toBe(62_000)
    expect(sessionExpiry(1_000, 30, 2_000)).toBe(31_000)
  })

  it('reads an account once, and again after the hub changed it', async () => {
    let reads = 0
    const load = async () => account(++reads)
    expect((await rememberedAccount('u1', load))!.sessionVersion).toBe(1)
    expect((await rememberedAccount('u1', load))!.sessionVersion).toBe(1)
    forgetSignedInUser('u1')
    expect((await rememberedAccount('u1', load))!.sessionVersion).toBe(2)
  })

  it('does not keep a row read while the account was being changed', async () => {
    forgetSignedInUser('u1')
    let release!: () => void
    const slow = rememberedAccount('u1', () => new Promise(resolve => release = () => resolve(account(7))))
    forgetSignedInUser('u1') // a sign-out lands while the read is in flight
    release()
    expect((await slow)!.sessionVersion).toBe(7)
    expect((await rememberedAccount('u1', async () => account(8)))!.sessionVersion).toBe(8)
  })
})
