import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { desc, eq, sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../helpers/databases'
import { runTs, startTs } from '../helpers/processes'
import { TESTS_TMP } from '../helpers/database-config'
import { opsAutomations, opsCronRuns } from '#db/schema/index'
import { acquireLease, readLease } from '#layers/health/core/leases'

describeOnBothDatabases('automates as processes', (database) => {
  const env = () => ({ DATABASE_URL: database().url })

  it('two supervisors started at once never run the same automate concurrently', async () => {
    const { db } = database()
    const crontab = join(TESTS_TMP, `guardian-crontab-${database().testKind}`)
    writeFileSync(crontab, '*/15 * * * * $SYNEDRE_HOME/scripts/automate lock-guardian\n')
    const [a, b] = await Promise.all([
      runTs('automates/supervisor.ts', ['--once', '--crontab', crontab], { env: env() }),
      runTs('automates/supervisor.ts', ['--once', '--crontab', crontab], { env: env() }),
    ])
    expect(a.code, a.output).toBe(0)
    expect(b.code, b.output).toBe(0)
    const runs = await db.select().from(opsCronRuns).where(eq(opsCronRuns.automation, 'lock-guardian'))
    expect(runs).toHaveLength(2)
    const ran = runs.filter(r => r.status === 'ok').sort((x, y) => x.startedAt.getTime() - y.startedAt.getTime())
    expect(ran.length).toBeGreaterThanOrEqual(1)
    for (let i = 1; i < ran.length; i++) expect(ran[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(ran[i - 1]!.endedAt!.getTime())
    for (const skipped of runs.filter(r => r.status === 'skipped')) expect(skipped.reason).toMatch(/^lease held by /)
    expect(await db.select().from(opsAutomations)).toContainEqual(expect.objectContaining({ name: 'lock-guardian', schedule: '*/15 * * * *', active: true }))
  })

  it('a killed automate leaves its lease to expire, and the guardian reports the dead holder', async () => {
    const { db } = database()
    const holder = startTs('tests/fixtures/hold-lease.ts', ['probe-killed', '2000'], { env: env() })
    await holder.waitFor(/holding/)
    holder.child.kill('SIGKILL')
    await holder.exited
    const lease = await readLease(db, 'automate:probe-killed')
    expect(lease?.pid).toBe(holder.child.pid)
    expect(await acquireLease(db, 'automate:probe-killed', { holder: 'next', host: 'h', pid: 1 }, 60_000)).toBe(false)

    const guardian = await runTs('automates/run.ts', ['lock-guardian', '--json'], { env: { ...env(), ATLAS_SMTP_HOST: '' } })
    expect(guardian.code, guardian.output).toBe(0)
    expect(guardian.output).toContain('"lock":"automate:probe-killed","why":"holder_gone"')
    // No mail server here: the team is not told, so the alert stays to be told at the next runs.
    expect(guardian.output).toMatch(/mail to internal team \(not sent: .*probe-killed/)
    const [alert] = await db.query.opsAlerts.findMany({ where: (a, { eq: is }) => is(a.subject, 'automate:probe-killed') })
    expect(alert).toMatchObject({ kind: 'zombie_lease', details: { why: 'holder_gone', pid: holder.child.pid } })
    expect(alert!.notifiedAt).toBeNull()
    // And the run says so: not configured (grey in the hub), with the variable to set, not ok.
    const [guardianRun] = await db.select().from(opsCronRuns).where(eq(opsCronRuns.automation, 'lock-guardian')).orderBy(desc(opsCronRuns.id)).limit(1)
    expect(guardianRun).toMatchObject({ status: 'not_configured', exitCode: 0, reason: expect.stringMatching(/^set (ATLAS_SMTP_HOST|INTERNAL_TEAM_EMAILS): alerts cannot be mailed/) })

    await new Promise(resolve => setTimeout(resolve, 2100))
    expect(await acquireLease(db, 'automate:probe-killed', { holder: 'next', host: 'h', pid: 1 }, 60_000)).toBe(true)
  })

  it('active = 0 stops an automate run by hand, and says why', async () => {
    const { db } = database()
    await db.update(opsAutomations).set({ active: false, updatedBy: 'founder@studio.test' }).where(eq(opsAutomations.name, 'lock-guardian'))
    const before = await db.select({ n: sql<number>`count(*)::int` }).from(opsCronRuns).where(eq(opsCronRuns.status, 'ok'))
    const result = await runTs('automates/run.ts', ['lock-guardian'], { env: env() })
    expect(result.code).toBe(0)
    expect(result.output).toContain('skipped — circuit breaker: ops_automations.active is off for lock-guardian (switched off by founder@studio.test)')
    const after = await db.select({ n: sql<number>`count(*)::int` }).from(opsCronRuns).where(eq(opsCronRuns.status, 'ok'))
    expect(after[0]!.n).toBe(before[0]!.n)
    await db.update(opsAutomations).set({ active: true }).where(eq(opsAutomations.name, 'lock-guardian'))
  })

  it('refuses an unknown automate and a bad flag with a clear message', async () => {
    const unknown = await runTs('automates/run.ts', ['ghost'], { env: env() })
    expect(unknown.code).toBe(2)
    expect(unknown.output).toContain('unknown automate "ghost"')
    const badFlag = await runTs('automates/run.ts', ['lock-guardian', '--stale-minutes', 'soon'], { env: env() })
    expect(badFlag.code).toBe(1)
    expect(badFlag.output).toContain('--stale-minutes must be a positive number, got "soon"')
  })

  it('a crontab line that does not parse stops the supervisor with the line and the fix, writing nothing', async () => {
    const { db } = database()
    const file = join(TESTS_TMP, 'bad-crontab')
    writeFileSync(file, '# ok\n*/15 * * * * $SYNEDRE_HOME/scripts/automate lock-guardian\n0 25 * * * $SYNEDRE_HOME/scripts/automate lock-guardian\n')
    const registryBefore = await db.select().from(opsAutomations)
    const result = await runTs('automates/supervisor.ts', ['--once', '--crontab', file], { env: env() })
    expect(result.code).toBe(1)
    expect(result.output).toContain(`${file}:3: the schedule "0 25 * * *" does not parse`)
    expect(result.output).toContain('fix: Use five standard cron fields')
    expect(await db.select().from(opsAutomations)).toEqual(registryBefore)
  })
})
