import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { guardLocks } from '../../layers/health/core/lock-guardian'
import { acquireLease } from '../../layers/health/core/leases'
import type { OpsAlert } from '../../db/schema'

describeOnBothDatabases('lock guardian', (database) => {
  it('raises one alert per zombie lease, tells the team once, and leaves healthy leases alone', async () => {
    const { db } = database()
    await acquireLease(db, 'automate:stuck', { holder: 'h1', host: 'other-host', pid: 10 }, 60_000)
    await acquireLease(db, 'automate:orphan', { holder: 'h2', host: 'this-host', pid: 666 }, 60_000)
    await acquireLease(db, 'automate:healthy', { holder: 'h3', host: 'this-host', pid: 42 }, 60_000)
    await db.execute(sql`update ops_locks set heartbeat_at = now() - interval '11 minutes' where name = 'automate:stuck'`)
    const told: OpsAlert[] = []
    const guardian = {
      db, host: 'this-host', now: () => new Date(),
      isProcessAlive: (pid: number) => pid !== 666,
      notifyTeam: async (alert: OpsAlert) => {
        told.push(alert)
      },
    }
    const first = await guardLocks(guardian)
    expect(first.checked).toBe(3)
    expect(first.zombies.map(z => [z.lock.name, z.why]).sort()).toEqual([['automate:orphan', 'holder_gone'], ['automate:stuck', 'stale']])
    expect(told.map(a => a.subject).sort()).toEqual(['automate:orphan', 'automate:stuck'])
    const second = await guardLocks(guardian)
    expect(second.zombies).toHaveLength(2)
    expect(second.newAlerts).toHaveLength(0)
    expect(told).toHaveLength(2)
    const alerts = await db.query.opsAlerts.findMany()
    expect(alerts).toHaveLength(2)
    expect(alerts.every(a => a.notifiedAt !== null && a.kind === 'zombie_lease')).toBe(true)
  })

  it('writes nothing in --dry-run', async () => {
    const { db } = database()
    await acquireLease(db, 'automate:dry', { holder: 'h9', host: 'this-host', pid: 777 }, 60_000)
    const report = await guardLocks({ db, host: 'this-host', now: () => new Date(), isProcessAlive: () => false, notifyTeam: async () => {} }, { dryRun: true })
    expect(report.zombies.map(z => z.lock.name)).toContain('automate:dry')
    expect(await db.query.opsAlerts.findMany({ where: (a, { eq }) => eq(a.subject, 'automate:dry') })).toHaveLength(0)
  })
})
