// Sign-in that resists guessing: each failure is recorded (hub_sign_in_failures for the
// limiter, hub_audit for people, never the password); too many recent failures make the next
// try wait, longer each time, before it is even checked. The waits are keyed so that a
// stranger cannot keep the owner out: one account from one address, one address over all
// accounts, and one account over all addresses — the last one never for an address the
// account signed in from before. A refused try is counted (hub_sign_in_refusals, a row a
// minute) and audited once a minute. An unknown account costs the same scrypt as a known one.
import { and, count, eq, gt, lt, max, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { hubAudit, hubSignInFailures, hubSignInRefusals, hubUsers, type HubUser } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import { hashPassword, verifyPassword } from './passwords'
import { normaliseEmail } from './users'

/** Failures counted over this window. */
export const WINDOW_MS = 15 * 60_000
/** Free failures for one account from one address. */
export const PAIR_FREE_FAILURES = 10
/** Free failures for one account from every address it never signed in from. */
export const ACCOUNT_FREE_FAILURES = 10
export const ADDRESS_FREE_FAILURES = 50
/** An address the account signed in from within this long is its own. */
export const KNOWN_ADDRESS_MS = 90 * 24 * 60 * 60_000
const FIRST_WAIT_MS = 30_000
const MAX_WAIT_MS = 15 * 60_000

export type SignInResult
  = | { ok: true, user: HubUser }
    | { ok: false, reason: 'invalid' }
    | { ok: false, reason: 'limited', retryAfterSeconds: number }

let dummyHash: Promise<string> | undefined

/** How long after the last failure the next try must wait: none, then 30 s doubling to 15 min. */
export function waitAfter(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0
  return Math.min(FIRST_WAIT_MS * 2 ** (failures - freeFailures), MAX_WAIT_MS)
}

async function failuresSince(db: Db, where: SQL | undefined, since: Date) {
  const [row] = await db.select({ n: count(), last: max(hubSignInFailures.at) }).from(hubSignInFailures)
    .where(and(where, gt(hubSignInFailures.at, since)))
  return { n: row?.n ?? 0, last: row?.last ? new Date(row.last) : null }
}

async function knownAddress(db: Db, email: string, address: string, now: Date): Promise<boolean> {
  const rows = await db.select({ id: hubAudit.id }).from(hubAudit).where(and(
    eq(hubAudit.action, 'signed_in'), eq(hubAudit.actor, email), sql`${hubAudit.details}->>'address' = ${address}`,
    gt(hubAudit.at, new Date(now.getTime() - KNOWN_ADDRESS_MS)),
  )).limit(1)
  return rows.length > 0
}

/** Seconds still to wait for this account from this address, or 0. */
export async function retryAfterSeconds(db: Db, email: string, address: string, now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - WINDOW_MS)
  const [pair, account, fromAddress, known] = await Promise.all([
    failuresSince(db, and(eq(hubSignInFailures.email, email), eq(hubSignInFailures.address, address)), since),
    failuresSince(db, eq(hubSignInFailures.email, email), since),
    failuresSince(db, eq(hubSignInFailures.address, address), since),
    knownAddress(db, email, address, now),
  ])
  const until = (failures: { n: number, last: Date | null }, free: number) =>
    failures.last ? failures.last.getTime() + waitAfter(failures.n, free) : 0
  const wait = Math.max(
    until(pair, PAIR_FREE_FAILURES),
    until(fromAddress, ADDRESS_FREE_FAILURES),
    known ? 0 : until(account, ACCOUNT_FREE_FAILURES),
  )
  return wait > now.getTime() ? Math.ceil((wait - now.getTime()) / 1000) : 0
}

/** A guess that failed (a wrong password at sign-in or at the password change): the limiter counts it. */
export async function recordFailure(db: Pick<Db, 'insert' | 'delete'>, email: string, address: string): Promise<void> {
  await db.insert(hubSignInFailures).values({ email, address })
  // Rows older than an hour serve no limit any more.
  if (Math.random() < 0.05) {
    await db.delete(hubSignInFailures).where(lt(hubSignInFailures.at, new Date(Date.now() - 4 * WINDOW_MS)))
    await db.delete(hubSignInRefusals).where(lt(hubSignInRefusals.minute, new Date(Date.now() - KNOWN_ADDRESS_MS)))
  }
}

/** A try refused unchecked: counted in its minute's row; the minute's first also goes to hub_audit. */
export async function recordRefusal(db: Db, input: { email: string, address: string, route: 'sign_in' | 'password_change', retryAfterSeconds: number, actor?: string }): Promise<void> {
  const [row] = await db.insert(hubSignInRefusals).values({ email: input.email, address: input.address, route: input.route, minute: sql`date_trunc('minute', now())` })
    .onConflictDoUpdate({ target: [hubSignInRefusals.email, hubSignInRefusals.address, hubSignInRefusals.minute, hubSignInRefusals.route], set: { count: sql`${hubSignInRefusals.count} + 1` } })
    .returning({ count: hubSignInRefusals.count })
  if (row?.count === 1) {
    await recordAudit(db, {
      actor: input.actor ?? 'anonymous', action: `${input.route}_refused`, target: input.email,
      details: { address: input.address, retryAfterSeconds: input.retryAfterSeconds, counted: 'hub_sign_in_refusals (one row a minute)' },
    })
  }
}

export async function signIn(db: Db, input: { email: string, password: string, address: string }): Promise<SignInResult> {
  const email = normaliseEmail(input.email)
  const wait = await retryAfterSeconds(db, email, input.address)
  if (wait > 0) {
    await recordRefusal(db, { email, address: input.address, route: 'sign_in', retryAfterSeconds: wait })
    return { ok: false, reason: 'limited', retryAfterSeconds: wait }
  }

  const user = await db.query.hubUsers.findFirst({ where: eq(hubUsers.email, email) })
  // The same scrypt work whether or not the account exists: timing tells nothing.
  dummyHash ??= hashPassword('not a password anyone has: the unknown account stand-in')
  const matches = await verifyPassword(user?.passwordHash ?? await dummyHash, input.password)
  if (user && user.active && matches) {
    await db.transaction(async (tx) => {
      await tx.update(hubUsers).set({ lastLoginAt: sql`now()` }).where(eq(hubUsers.id, user.id))
      // Also what makes this address the account's own (knownAddress).
      await recordAudit(tx, { actor: user.email, action: 'signed_in', details: { address: input.address } })
    })
    return { ok: true, user }
  }
  const reason = !user ? 'unknown_account' : !user.active ? 'disabled_account' : 'wrong_password'
  await db.transaction(async (tx) => {
    await recordFailure(tx, email, input.address)
    await recordAudit(tx, { actor: 'anonymous', action: 'sign_in_failed', target: email, details: { address: input.address, reason } })
  })
  return { ok: false, reason: 'invalid' }
}
