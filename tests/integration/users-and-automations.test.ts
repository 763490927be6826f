import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '../helpers/databases'
import { authenticate, createUser, ensureFirstFounder, UserInputError } from '../../server/core/users'
import { listAutomations, setAutomationActive, syncAutomations } from '../../layers/health/core/automations'
import { openRun, closeRun } from '../../layers/health/core/cron-runs'

describeOnBothDatabases('hub users', (database) => {
  it('creates the first founder from the environment once, then never again', async () => {
    const { db } = database()
    expect(await ensureFirstFounder(db, {})).toBeNull()
    const founder = await ensureFirstFounder(db, { email: ' Founder@Studio.test ', password: 'a-long-enough-password' })
    expect(founder).toMatchObject({ email: 'founder@studio.test', role: 'founder' })
    expect(founder!.passwordHash).not.toContain('a-long-enough-password')
    expect(await ensureFirstFounder(db, { email: 'other@studio.test', password: 'a-long-enough-password' })).toBeNull()
    const audit = await db.query.hubAudit.findMany()
    expect(audit.map(a => [a.action, a.target])).toContainEqual(['user_created', 'founder@studio.test'])
  })

  it('authenticates by email and password, case-insensitively on the email only', async () => {
    const { db } = database()
    await createUser(db, { email: 'op@studio.test', role: 'operator', password: 'operator-password' }, 'test')
    expect(await authenticate(db, 'OP@studio.test', 'operator-password')).toMatchObject({ role: 'operator' })
    expect(await authenticate(db, 'op@studio.test', 'Operator-password')).toBeUndefined()
    expect(await authenticate(db, 'nobody@studio.test', 'operator-password')).toBeUndefined()
  })

  it('refuses a duplicate email, a bad email and a short password without writing', async () => {
    const { db } = database()
    await expect(createUser(db, { email: 'op@studio.test', role: 'viewer', password: 'another-password' }, 'test')).rejects.toThrow(/already exists/)
    await expect(createUser(db, { email: 'not-an-email', role: 'viewer', password: 'another-password' }, 'test')).rejects.toBeInstanceOf(UserInputError)
    await expect(createUser(db, { email: 'v@studio.test', role: 'viewer', password: 'short' }, 'test')).rejects.toThrow(/at least 12/)
    expect((await db.query.hubUsers.findMany()).map(u => u.email).sort()).toEqual(['founder@studio.test', 'op@studio.test'])
  })
})

describeOnBothDatabases('automation registry', (database) => {
  it('syncs from the crontab without touching active, lists the last run, and audits switches', async () => {
    const { db } = database()
    const entry = { line: 1, schedule: '*/15 * * * *', automation: 'lock-guardian', args: [] }
    const describe = () => ({ name: 'lock-guardian', description: 'guards', scope: 'ops_locks' })
    await syncAutomations(db, [entry], describe)
    expect(await setAutomationActive(db, 'lock-guardian', false, 'founder@studio.test')).toBe(true)
    await syncAutomations(db, [{ ...entry, schedule: '*/10 * * * *' }], describe)
    const id = await openRun(db, { automation: 'lock-guardian', args: [], host: 'h', pid: 1 })
    await closeRun(db, id, { status: 'ok', exitCode: 0 })
    const [overview] = await listAutomations(db)
    expect(overview).toMatchObject({ name: 'lock-guardian', schedule: '*/10 * * * *', active: false, updatedBy: 'founder@studio.test', description: 'guards' })
    expect(overview!.lastRun).toMatchObject({ status: 'ok', exitCode: 0 })
    expect(await setAutomationActive(db, 'ghost', true, 'founder@studio.test')).toBe(false)
    const audit = await db.query.hubAudit.findMany({ where: (a, { like }) => like(a.action, 'automation_%') })
    expect(audit.map(a => [a.actor, a.action, a.target])).toEqual([['founder@studio.test', 'automation_disabled', 'lock-guardian']])
  })
})
