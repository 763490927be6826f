// Session revocation: each cookie carries its account's session version at sign-in;
// signing out or changing the password moves the version on, so every older cookie is
// refused at its next request (server/middleware/auth.ts compares them).
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { hubUsers } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import { hashPassword, verifyPassword } from './passwords'
import { passwordProblem } from './password-policy'
import { recordFailure, recordRefusal, retryAfterSeconds } from './sign-in'

/** Ends every session of the account whose cookie carries `version` (a stale cookie ends nothing). */
export async function revokeSessions(db: Db, userId: string, version: number | undefined): Promise<boolean> {
  if (typeof version !== 'number') return false
  const [row] = await db.update(hubUsers).set({ sessionVersion: sql`${hubUsers.sessionVersion} + 1` })
    .where(and(eq(hubUsers.id, userId), eq(hubUsers.sessionVersion, version)))
    .returning({ email: hubUsers.email })
  if (row) await recordAudit(db, { actor: row.email, action: 'signed_out' })
  return Boolean(row)
}

export type PasswordChange
  = | { ok: true, sessionVersion: number }
    | { ok: false, status: number, code: string, message: string, retryAfterSeconds?: number }

export async function changePassword(db: Db, userId: string, current: string, next: string, address: string): Promise<PasswordChange> {
  const user = await db.query.hubUsers.findFirst({ where: eq(hubUsers.id, userId) })
  // A stolen session guessing the current password meets the sign-in's limiter.
  const wait = user ? await retryAfterSeconds(db, user.email, address) : 0
  if (user && wait > 0) {
    await recordRefusal(db, { email: user.email, address, route: 'password_change', retryAfterSeconds: wait, actor: user.email })
    return { ok: false, status: 429, code: 'too_many_attempts', message: `Too many wrong current passwords: try again in ${wait} s.`, retryAfterSeconds: wait }
  }
  if (!user || !await verifyPassword(user.passwordHash, current)) {
    await db.transaction(async (tx) => {
      if (user) await recordFailure(tx, user.email, address)
      await recordAudit(tx, { actor: user?.email ?? userId, action: 'password_change_failed', details: { reason: 'wrong_current_password', address } })
    })
    return { ok: false, status: 400, code: 'wrong_current_password', message: 'The current password is not right.' }
  }
  const problem = passwordProblem(next, user.email)
  if (problem) return { ok: false, status: 400, code: 'weak_password', message: `The new password is refused: ${problem}.` }
  const passwordHash = await hashPassword(next)
  const [row] = await db.update(hubUsers).set({ passwordHash, sessionVersion: sql`${hubUsers.sessionVersion} + 1` })
    .where(eq(hubUsers.id, userId)).returning({ sessionVersion: hubUsers.sessionVersion })
  await recordAudit(db, { actor: user.email, action: 'password_changed' })
  return { ok: true, sessionVersion: row!.sessionVersion }
}
