import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '../helpers/databases'
import { createUser, ensureFirstFounder, UserInputError } from '#server/core/users'
import { signIn } from '#server/core/sign-in'
import { listAutomations, setAutomationActive, syncAutomations } from '#layers/health/core/automations'
import { openRun, closeRun } from '#layers/health/core/cron-runs'

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

  it('authenticates by email and password, case-insensitively on the email only, auditing failures without the password', async () => {
    const { db } = database()
    await createUser(db, { email: 'op@studio.test', role: 'operator', password: 'operator-password' }, 'test')
    const at = { address: '192.0.2.7' }
    expect(await signIn(db, { email: 'OP@studio.test', password: 'operator-password', ...at })).toMatchObject({ ok: true, user: { role: 'operator' } })
    expect(await signIn(db, { email: 'op@studio.test', password: 'Operator-password', ...at })).toEqual({ ok: false, reason: 'invalid' })
    expect(await signIn(db, { email: 'nobody@studio.test', password: 'operator-password', ...at })).toEqual({ ok: false, reason: 'invalid' })
    const failures = await db.query.hubAudit.findMany({ where: (a, { eq }) => eq(a.action, 'sign_in_failed') })
    expect(failures.map(a => [a.target, a.details])).toEqual([
      ['op@studio.test', { address: '192.0.2.7', reason: 'wrong_password' }],
      ['nobody@studio.test', { address: '192.0.2.7', reason: 'unknown_account' }],
    ])
    expect(JSON.stringify(failures)).not.toMatch(/operator-password/i)
  })

  it('makes an account wait after ten failures, without touching another account', async () => {
    const { db } = database()
    await createUser(db, { email: 'target@studio.test', role: 'viewer', password: 'target-password-9' }, 'test')
    for (let i = 0; i < 10; i++) {
      expect(await signIn(db, { email: 'target@studio.test', password: `guess-${i}`, address: `198.51.100.${i}` })).toEqual({ ok: false, reason: 'invalid' })
    }
    const locked = await signIn(db, { email: 'target@studio.test', password: 'target-password-9', address: '203.0.113.1' })
    expect(locked).toMatchObject({ ok: false, reason: 'limited' })
    expect((locked as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(20)
    expect(await signIn(db, { email: 'op@studio.test', password: 'operator-password', address: '198.51.100.1' })).toMatchObject({ ok: true })
  })

  it('refuses a duplicate email, a bad email and a short password without writing', async () => {
    const { db } = database()
    await expect(createUser(db, { email: 'op@studio.test', role: 'viewer', password: 'another-password' }, 'test')).rejects.toThrow(/already exists/)
    await expect(createUser(db, { email: 'not-an-email', role: 'viewer', password: 'another-password' }, 'test')).rejects.toBeInstanceOf(UserInputError)
    await expect(createUser(db, { email: 'v@studio.test', role: 'viewer', password: 'short' }, 'test')).rejects.toThrow(/at least 12/)
    await expect(createUser(db, { email: 'v@studio.test', role: 'viewer', password: 'aaaaaaaaaaaa' }, 'test')).rejects.toThrow(/repeats/)
    await expect(createUser(db, { email: 'v@studio.test', role: 'viewer', password: 'Password1234!' }, 'test')).rejects.toThrow(/most common/)
    await expect(createUser(db, { email: 'v@studio.test', role: 'viewer', password: 'qwertyuiop123' }, 'test')).rejects.toThrow(/most common/)
    expect((await db.query.hubUsers.findMany()).map(u => u.email).sort()).toEqual(['founder@studio.test', 'op@studio.test', 'target@studio.test'])
  })

  it('keeps a stranger flooding an account from locking its owner out of an address the owner signed in from', async () => {
    const { db } = database()
    await createUser(db, { email: 'owner@studio.test', role: 'viewer', password: 'owner-password-9' }, 'test')
    expect(await signIn(db, { email: 'owner@studio.test', password: 'owner-password-9', address: '192.0.2.50' })).toMatchObject({ ok: true })
    for (let i = 0; i < 12; i++) await signIn(db, { email: 'owner@studio.test', password: `guess-${i}`, address: '203.0.113.99' })
    expect(await signIn(db, { email: 'owner@studio.test', password: 'owner-password-9', address: '203.0.113.99' })).toMatchObject({ ok: false, reason: 'limited' })
    expect(await signIn(db, { email: 'owner@studio.test', password: 'owner-password-9', address: '198.51.100.77' })).toMatchObject({ ok: false, reason: 'limited' })
    expect(await signIn(db, { email: 'owner@studio.test', password: 'owner-password-9', address: '192.0.2.50' })).toMatchObject({ ok: true })
    // Refused tries (two guesses past the limit, then the owner's password): counted per minute, audited once a minute per address.
    const refusals = await db.query.hubSignInRefusals.findMany({ where: (r, { eq }) => eq(r.email, 'owner@studio.test') })
    expect(refusals.map(r => [r.address, r.route, r.count]).sort()).toEqual([['198.51.100.77', 'sign_in', 1], ['203.0.113.99', 'sign_in', 3]])
    for (let i = 0; i < 5; i++) await signIn(db, { email: 'owner@studio.test', password: 'owner-password-9', address: '203.0.113.99' })
    const counted = await db.query.hubSignInRefusals.findMany({ where: (r, { and, eq }) => and(eq(r.email, 'owner@studio.test'), eq(r.address, '203.0.113.99')) })
    expect(counted.reduce((sum, r) => sum + r.count, 0)).toBe(8)
    const audited = await db.query.hubAudit.findMany({ where: (a, { and, eq }) => and(eq(a.action, 'sign_in_refused'), eq(a.target, 'owner@studio.test')) })
    expect(audited.length).toBeGreaterThanOrEqual(2)
    expect(audited.length).toBeLessThanOrEqual(4)
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
