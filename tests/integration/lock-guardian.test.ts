import { expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { guardLocks } from '#layers/health/core/lock-guardian'
import { acquireLease } from '#layers/health/core/leases'
import type { OpsAlert } from '#db/schema/index'

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
        return true
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
    const report = await guardLocks({ db, host: 'this-host', now: () => new Date(), isProcessAlive: () => false, notifyTeam: async () => true }, { dryRun: true })
    expect(report.zombies.map(z => z.lock.name)).toContain('automate:dry')
    expect(await db.query.opsAlerts.findMany({ where: (a, { eq }) => eq(a.subject, 'automate:dry') })).toHaveLength(0)
  })

  it('tells the team again at the next run when the mail could not go out, then never again', async () => {
    const { db } = database()
    await acquireLease(db, 'automate:mail-down', { holder: 'h7', host: 'this-host', pid: 668 }, 60_000)
    const attempts: string[] = []
    const logs: string[] = []
    let mail: 'down' | 'unconfigured' | 'up' = 'down'
    const guardian = {
      db, host: 'this-host', now: () => new Date(), log: (line: string) => void logs.push(line),
      isProcessAlive: (pid: number) => pid !== 668,
      notifyTeam: async (alert: OpsAlert) => {
        if (alert.subject !== 'automate:mail-down') return true
        attempts.push(mail)
        if (mail === 'down') throw new Error('connect ECONNREFUSED 127.0.0.1:25')
        return mail === 'up'
      },
    }
    const first = await guardLocks(guardian)
    expect(first.newAlerts.map(a => a.subject)).toContain('automate:mail-down')
    expect(first.told.map(a => a.subject)).not.toContain('automate:mail-down')
    expect(logs.some(line => /alert #\d+ not sent \(connect ECONNREFUSED 127.0.0.1:25\); tried again at the next run/.test(line))).toBe(true)
    mail = 'unconfigured'
    expect((await guardLocks(guardian)).told.map(a => a.subject)).not.toContain('automate:mail-down')
    mail = 'up'
    const third = await guardLocks(guardian)
    expect(third.newAlerts).toEqual([])
    expect(third.told.map(a => a.subject)).toEqual(['automate:mail-down'])
    await guardLocks(guardian)
    expect(attempts).toEqual(['down', 'unconfigured', 'up'])
    const [alert] = await db.query.opsAlerts.findMany({ where: (a, { eq }) => eq(a.subject, 'automate:mail-down') })
    expect(alert!.notifiedAt).not.toBeNull()
  })

  it('gives up telling an alert older than a day', async () => {
    const { db } = database()
    await db.execute(sql`insert into ops_alerts (kind, subject, holder, message, raised_at) values ('zombie_lease', 'automate:long-ago', 'h8', 'old news', now() - interval '25 hours')`)
    const told: string[] = []
    await guardLocks({ db, host: 'this-host', now: () => new Date(), isProcessAlive: () => true, notifyTeam: async (alert: OpsAlert) => {
      told.push(alert.subject)
      return true
    } })
    expect(told).not.toContain('automate:long-ago')
  })
})
