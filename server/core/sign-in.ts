// Sign-in that resists guessing: each failure is recorded (hub_sign_in_failures for the
// limiter, hub_audit for people, never the password); an account or an address with too
// many recent failures must wait, longer each time, before its next try is even checked;
// an unknown account costs the same scrypt as a known one.
import { and, count, eq, gt, lt, max, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { hubSignInFailures, hubUsers, type HubUser } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import { hashPassword, verifyPassword } from './passwords'
import { normaliseEmail } from './users'

/** Failures counted over this window. */
export const WINDOW_MS = 15 * 60_000
export const ACCOUNT_FREE_FAILURES = 10
export const ADDRESS_FREE_FAILURES = 50
const FIRST_WAIT_MS = 30_000
const MAX_WAIT_MS = 15 * 60_000

export type SignInResult =
  | { ok: true, user: HubUser }
  | { ok: false, reason: 'invalid' }
  | { ok: false, reason: 'limited', retryAfterSeconds: number }

let dummyHash: Promise<string> | undefined

/** How long after the last failure the next try must wait: none, then 30 s doubling to 15 min. */
export function waitAfter(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0
  return Math.min(FIRST_WAIT_MS * 2 ** (failures - freeFailures), MAX_WAIT_MS)
}

async function failuresSince(db: Db, column: typeof hubSignInFailures.email | typeof hubSignInFailures.address, value: string, since: Date) {
  const [row] = await db.select({ n: count(), last: max(hubSignInFailures.at) }).from(hubSignInFailures)
    .where(and(eq(column, value), gt(hubSignInFailures.at, since)))
  return { n: row?.n ?? 0, last: row?.last ? new Date(row.last) : null }
}

/** Seconds still to wait for this account or address, or 0. */
export async function retryAfterSeconds(db: Db, email: string, address: string, now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - WINDOW_MS)
  const [account, fromAddress] = await Promise.all([
    failuresSince(db, hubSignInFailures.email, email, since),
    failuresSince(db, hubSignInFailures.address, address, since),
  ])
  const until = Math.max(
    account.last ? account.last.getTime() + waitAfter(account.n, ACCOUNT_FREE_FAILURES) : 0,
    fromAddress.last ? fromAddress.last.getTime() + waitAfter(fromAddress.n, ADDRESS_FREE_FAILURES) : 0,
  )
  return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0
}

export async function signIn(db: Db, input: { email: string, password: string, address: string }): Promise<SignInResult> {
  const email = normaliseEmail(input.email)
  const wait = await retryAfterSeconds(db, email, input.address)
  if (wait > 0) return { ok: false, reason: 'limited', retryAfterSeconds: wait }

  const user = await db.query.hubUsers.findFirst({ where: eq(hubUsers.email, email) })
  // The same scrypt work whether or not the account exists: timing tells nothing.
  dummyHash ??= hashPassword('not a password anyone has: the unknown account stand-in')
  const matches = await verifyPassword(user?.passwordHash ?? await dummyHash, input.password)
  if (user && user.active && matches) {
    await db.update(hubUsers).set({ lastLoginAt: sql`now()` }).where(eq(hubUsers.id, user.id))
    return { ok: true, user }
  }
  const reason = !user ? 'unknown_account' : !user.active ? 'disabled_account' : 'wrong_password'
  await db.transaction(async (tx) => {
    await tx.insert(hubSignInFailures).values({ email, address: input.address })
    await recordAudit(tx, { actor: 'anonymous', action: 'sign_in_failed', target: email, details: { address: input.address, reason } })
  })
  // Rows older than an hour serve no limit any more.
  if (Math.random() < 0.05) await db.delete(hubSignInFailures).where(lt(hubSignInFailures.at, new Date(Date.now() - 4 * WINDOW_MS)))
  return { ok: false, reason: 'invalid' }
}
