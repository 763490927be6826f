import { describe, expect, it } from 'vitest'
import { findZombies } from '#layers/health/core/lock-guardian'
import { untoldState } from '#layers/health/core/alert-retell'
import type { OpsLock } from '#db/schema/index'

const now = new Date('2026-11-30T12:00:00Z')
const lease = (name: string, host: string, pid: number, heartbeatMinutesAgo: number): OpsLock => ({
  name, holder: `h-${name}`, host, pid,
  acquiredAt: new Date(now.getTime() - 3_600_000),
  heartbeatAt: new Date(now.getTime() - heartbeatMinutesAgo * 60_000),
  expiresAt: new Date(now.getTime() + 60_000),
})

describe('zombie leases', () => {
  const deps = { host: 'here', now: () => now, isProcessAlive: (pid: number) => pid !== 666 }

  it('flags a lease silent for more than 10 minutes, on any host', () => {
    const zombies = findZombies([lease('a', 'elsewhere', 1, 11), lease('b', 'elsewhere', 1, 9)], deps)
    expect(zombies.map(z => [z.lock.name, z.why])).toEqual([['a', 'stale']])
  })

  it('flags a lease whose holder process is gone on this host, however fresh', () => {
    const zombies = findZombies([lease('c', 'here', 666, 0), lease('d', 'here', 42, 0), lease('e', 'elsewhere', 666, 0)], deps)
    expect(zombies.map(z => [z.lock.name, z.why])).toEqual([['c', 'holder_gone']])
    expect(zombies[0]!.message).toContain('666')
  })
})

describe('an alert the team was not told of', () => {
  const now = new Date('2026-11-30T12:00:00Z').getTime()
  const raised = (hoursAgo: number) => new Date(now - hoursAgo * 3_600_000).toISOString()

  it('is retried for a day, then given up, and only for the kinds the guardian tells', () => {
    expect(untoldState({ kind: 'zombie_lease', raisedAt: raised(2) }, now)).toBe('not yet: the guardian tries again at each run')
    expect(untoldState({ kind: 'zombie_lease', raisedAt: raised(25) }, now)).toBe('never: the guardian gave up after a day')
    expect(untoldState({ kind: 'disk_full', raisedAt: raised(1) }, now)).toBe('not sent')
  })
})
