// People as the founder manages them from the hub, on both databases: accounts created with a
// password or by invitation, a taken email refused, roles changed with before and after in the
// audit, the last active founder kept, deactivation ending every session at once, and one-time
// links that are stored hashed, work once, expire, and meet a limit when guessed.
import { and, eq } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '../helpers/databases'
import { hubAudit, hubOneTimeLinks, hubUsers } from '#db/schema/index'
import { createUser } from '#server/core/users'
import { signIn } from '#server/core/sign-in'
import { createPerson, createResetLink, listPeople, setPersonActive, updatePerson } from '#server/core/people'
import { hashLinkToken, LINK_FREE_FAILURES, LINK_LIFETIME_MS, linkPath, lookupLink, setPasswordByLink } from '#server/core/one-time-links'
import { PersonCreate, PersonPatch } from '#shared/people'

const FOUNDER = 'founder@studio.test'
const ADDRESS = '192.0.2.40'
const create = (fields: Record<string, unknown>) => PersonCreate.parse(fields)
const ok = <T extends { ok: boolean }>(change: T) => {
  if (!change.ok) throw new Error(`refused: ${JSON.stringify(change)}`)
  return change as Extract<T, { ok: true }>
}

describeOnBothDatabases('people from the hub', (database) => {
  it('creates an account with a typed password (policy-checked) that signs in, and refuses a taken email', async () => {
    const { db } = database()
    const made = ok(await createPerson(db, create({ email: ' Ada@Studio.test ', name: 'Ada', role: 'operator', password: 'ada-lovelace-engine-1843' }), FOUNDER))
    expect(made.person).toMatchObject({ email: 'ada@studio.test', name: 'Ada', role: 'operator', active: true, invited: false, lastSignInAt: null })
    expect(made.link).toBeUndefined()
    expect(await signIn(db, { email: 'ada@studio.test', password: 'ada-lovelace-engine-1843', address: ADDRESS })).toMatchObject({ ok: true })
    expect((await listPeople(db)).find(p => p.email === 'ada@studio.test')?.lastSignInAt).toEqual(expect.any(String))

    expect(await createPerson(db, create({ email: 'ADA@studio.test', role: 'viewer', password: 'another-long-phrase-77' }), FOUNDER))
      .toMatchObject({ ok: false, code: 'email_taken' })
    expect(await createPerson(db, create({ email: 'weak@studio.test', role: 'viewer', password: 'password1234' }), FOUNDER))
      .toMatchObject({ ok: false, code: 'weak_password', message: expect.stringMatching(/common/) })
    expect(await db.select().from(hubUsers).where(eq(hubUsers.email, 'weak@studio.test'))).toEqual([])
    const [audit] = await db.select().from(hubAudit).where(and(eq(hubAudit.action, 'user_created'), eq(hubAudit.target, 'ada@studio.test')))
    expect(audit).toMatchObject({ actor: FOUNDER, details: { after: { email: 'ada@studio.test', role: 'operator', active: true }, by: 'password' } })
    expect(JSON.stringify(audit)).not.toContain('ada-lovelace')
  })

  it('changes a name and a role with before and after in the audit, and keeps the last active founder', async () => {
    const { db } = database()
    const founder = await createUser(db, { email: 'solo@studio.test', role: 'founder', password: 'solo-founder-phrase-1' }, 'test')
    const other = ok(await createPerson(db, create({ email: 'grace@studio.test', role: 'viewer', password: 'grace-hopper-cobol-59' }), FOUNDER)).person
    expect(ok(await updatePerson(db, other.id, PersonPatch.parse({ role: 'founder', name: 'Grace H.' }), FOUNDER)).person).toMatchObject({ role: 'founder', name: 'Grace H.' })
    const [audit] = await db.select().from(hubAudit).where(and(eq(hubAudit.action, 'user_updated'), eq(hubAudit.target, 'grace@studio.test')))
    expect(audit!.details).toMatchObject({ before: { role: 'viewer', name: 'grace' }, after: { role: 'founder', name: 'Grace H.' } })

    // Two founders demoting each other at once: one wins, the other meets the last-founder rule.
    const racing = await Promise.all([founder.id, other.id].map(id => updatePerson(db, id, PersonPatch.parse({ role: 'operator' }), FOUNDER)))
    expect(racing.filter(change => change.ok)).toHaveLength(1)
    expect(racing.find(change => !change.ok)).toMatchObject({ code: 'last_founder', message: expect.stringMatching(/last active founder/) })
    const remaining = racing[0]!.ok ? other : { ...other, id: founder.id }
    expect(await setPersonActive(db, remaining.id, { active: false }, FOUNDER)).toMatchObject({ ok: false, code: 'last_founder' })
    expect((await listPeople(db)).filter(p => p.role === 'founder' && p.active).map(p => p.id)).toEqual([remaining.id])
    expect(await updatePerson(db, '00000000-0000-4000-8000-000000000000', PersonPatch.parse({ name: 'x' }), FOUNDER)).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('ends every session of a deactivated account at once (its session version moves on), and lets it back after reactivation', async () => {
    const { db } = database()
    const made = ok(await createPerson(db, create({ email: 'linus@studio.test', role: 'operator', password: 'penguin-kernel-1991-x' }), FOUNDER)).person
    const [before] = await db.select().from(hubUsers).where(eq(hubUsers.id, made.id))
    expect(ok(await setPersonActive(db, made.id, { active: false }, FOUNDER)).person.active).toBe(false)
    const [after] = await db.select().from(hubUsers).where(eq(hubUsers.id, made.id))
    expect(after!.sessionVersion).toBe(before!.sessionVersion + 1)
    expect(await signIn(db, { email: 'linus@studio.test', password: 'penguin-kernel-1991-x', address: ADDRESS })).toEqual({ ok: false, reason: 'invalid' })
    expect(ok(await setPersonActive(db, made.id, { active: true }, FOUNDER)).person.active).toBe(true)
    expect(await signIn(db, { email: 'linus@studio.test', password: 'penguin-kernel-1991-x', address: ADDRESS })).toMatchObject({ ok: true })
    const actions = await db.select({ action: hubAudit.action, details: hubAudit.details }).from(hubAudit).where(eq(hubAudit.target, 'linus@studio.test'))
    expect(actions.map(a => a.action).filter(action => action.startsWith('user_'))).toEqual(['user_created', 'user_deactivated', 'user_reactivated'])
    expect(actions.find(a => a.action === 'user_deactivated')!.details).toEqual({ before: { active: true }, after: { active: false } })
  })

  it('invites with a one-time link stored hashed, which sets the password once and signs the person in', async () => {
    const { db } = database()
    const now = new Date()
    const made = ok(await createPerson(db, create({ email: 'margaret@studio.test', role: 'operator' }), FOUNDER, now))
    expect(made.person.invited).toBe(true)
    const link = made.link!
    expect(link).toMatchObject({ kind: 'invitation', token: expect.stringMatching(/^[\w-]{43}$/) })
    expect(link.expiresAt.getTime() - now.getTime()).toBe(LINK_LIFETIME_MS.invitation)
    expect(linkPath(link)).toBe(`/welcome/${link.token}`)
    // At rest: the SHA-256 of the token, never the token.
    const stored = await db.select().from(hubOneTimeLinks).where(eq(hubOneTimeLinks.userId, made.person.id))
    expect(stored.map(row => row.tokenHash)).toEqual([hashLinkToken(link.token)])
    expect(JSON.stringify(stored)).not.toContain(link.token)
    expect(JSON.stringify(await db.select().from(hubAudit))).not.toContain(link.token)

    // Nobody can sign in to an invited account before its link is used.
    expect(await signIn(db, { email: 'margaret@studio.test', password: '', address: ADDRESS })).toEqual({ ok: false, reason: 'invalid' })
    expect(await lookupLink(db, link.token, ADDRESS)).toEqual({ ok: true, kind: 'invitation', email: 'margaret@studio.test', name: 'margaret' })
    expect(await setPasswordByLink(db, link.token, 'margaret', ADDRESS)).toMatchObject({ ok: false, status: 400, code: 'weak_password' })
    const [before] = await db.select().from(hubUsers).where(eq(hubUsers.id, made.person.id))
    const used = ok(await setPasswordByLink(db, link.token, 'apollo-guidance-computer-69', ADDRESS))
    expect(used.user.sessionVersion).toBe(before!.sessionVersion + 1)
    expect(await signIn(db, { email: 'margaret@studio.test', password: 'apollo-guidance-computer-69', address: ADDRESS })).toMatchObject({ ok: true })
    expect(await setPasswordByLink(db, link.token, 'another-phrase-entirely-2', ADDRESS)).toMatchObject({ ok: false, status: 410, code: 'link_used' })
    expect(await lookupLink(db, link.token, ADDRESS)).toMatchObject({ ok: false, status: 410, code: 'link_used' })
    expect((await listPeople(db)).find(p => p.id === made.person.id)).toMatchObject({ invited: false, lastSignInAt: expect.any(String) })
    const audit = await db.select({ action: hubAudit.action, details: hubAudit.details }).from(hubAudit).where(eq(hubAudit.actor, 'margaret@studio.test'))
    expect(audit.map(a => a.action)).toEqual(expect.arrayContaining(['password_set_by_link', 'signed_in']))
  })

  it('resets a password by link: expires after a day, a newer link expires the older one, two uses at once set it once', async () => {
    const { db } = database()
    const made = ok(await createPerson(db, create({ email: 'barbara@studio.test', role: 'viewer', password: 'liskov-substitution-87' }), FOUNDER)).person
    const issuedAt = new Date(Date.now() - LINK_LIFETIME_MS.reset - 1000)
    const old = ok(await createResetLink(db, made.id, FOUNDER, issuedAt)).link!
    expect(old.kind).toBe('reset')
    expect(linkPath(old)).toBe(`/reset/${old.token}`)
    expect(await setPasswordByLink(db, old.token, 'clu-language-abstraction-74', ADDRESS)).toMatchObject({ ok: false, status: 410, code: 'link_expired' })

    const first = ok(await createResetLink(db, made.id, FOUNDER)).link!
    const second = ok(await createResetLink(db, made.id, FOUNDER)).link!
    expect(await lookupLink(db, first.token, ADDRESS)).toMatchObject({ ok: false, code: 'link_expired' })
    const racing = await Promise.all(['venus-operating-system-72', 'argus-distributed-lang-88'].map(password => setPasswordByLink(db, second.token, password, ADDRESS)))
    expect(racing.filter(result => result.ok)).toHaveLength(1)
    expect(racing.find(result => !result.ok)).toMatchObject({ code: 'link_used' })
    expect(await signIn(db, { email: 'barbara@studio.test', password: 'liskov-substitution-87', address: ADDRESS })).toEqual({ ok: false, reason: 'invalid' })

    // A deactivated account's link does not work.
    const third = ok(await createResetLink(db, made.id, FOUNDER)).link!
    ok(await setPersonActive(db, made.id, { active: false }, FOUNDER))
    expect(await setPasswordByLink(db, third.token, 'thinking-machines-clu-1', ADDRESS)).toMatchObject({ ok: false, status: 410, code: 'account_inactive' })
    expect(await createResetLink(db, '00000000-0000-4000-8000-000000000000', FOUNDER)).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('makes an address that guesses tokens wait, without slowing another address', async () => {
    const { db } = database()
    const guesser = '203.0.113.9'
    for (let i = 0; i < LINK_FREE_FAILURES; i++) {
      expect(await lookupLink(db, `${'x'.repeat(40)}${String(i).padStart(3, '0')}`, guesser)).toMatchObject({ ok: false, status: 400, code: 'invalid_link' })
    }
    expect(await lookupLink(db, 'y'.repeat(43), guesser)).toMatchObject({ ok: false, status: 429, code: 'too_many_attempts', retryAfterSeconds: expect.any(Number) })
    const made = ok(await createPerson(db, create({ email: 'frances@studio.test', role: 'viewer' }), FOUNDER))
    expect(await lookupLink(db, made.link!.token, '203.0.113.10')).toMatchObject({ ok: true, email: 'frances@studio.test' })
  })
})

it('reads the people forms strictly', () => {
  expect(PersonCreate.safeParse({ email: 'not-an-email', role: 'operator' }).success).toBe(false)
  expect(PersonCreate.safeParse({ email: 'a@b.example', role: 'admin' }).success).toBe(false)
  expect(PersonCreate.safeParse({ email: 'a@b.example', role: 'viewer', passwordHash: 'x' }).success).toBe(false)
  expect(PersonPatch.safeParse({}).success).toBe(false)
  expect(PersonPatch.safeParse({ email: 'other@b.example' }).success).toBe(false)
})
