// One-time links: how a person sets their password without anyone mailing them (the hub mails
// no one outside the studio). The founder creates the link and hands it over; the token has
// 256 random bits and only its SHA-256 is stored; it works once, before its expiry; a newer link
// for the same account expires the older ones. Wrong tokens count against the address that sent
// them (hub_sign_in_failures, under its own key), so guessing meets growing waits.
import { createHash, randomBytes } from 'node:crypto'
import { and, count, eq, gt, isNull, max, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/connection'
import { hubOneTimeLinks, hubSignInFailures, hubUsers, type HubUser, type OneTimeLinkKind } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import { hashPassword } from './passwords'
import { passwordProblem } from './password-policy'
import { recordFailure, waitAfter, WINDOW_MS } from './sign-in'

export const LINK_LIFETIME_MS: Record<OneTimeLinkKind, number> = {
  invitation: 72 * 60 * 60_000,
  reset: 24 * 60 * 60_000,
}
/** The key wrong tokens are counted under in hub_sign_in_failures (no account has it: no "@"). */
export const LINK_GUESS_KEY = 'one-time-link'
/** Wrong tokens one address may send in WINDOW_MS before it waits. */
export const LINK_FREE_FAILURES = 10

export interface IssuedLink { kind: OneTimeLinkKind, token: string, expiresAt: Date }

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** The page a link opens: /welcome/<token> for an invitation, /reset/<token> for a reset. */
export function linkPath(link: { kind: OneTimeLinkKind, token: string }): string {
  return `/${link.kind === 'invitation' ? 'welcome' : 'reset'}/${link.token}`
}

/** A new link for the account; its older unused links expire now. Called inside the change's transaction. */
export async function issueLink(tx: Tx, userId: string, kind: OneTimeLinkKind, actor: string, now = new Date()): Promise<IssuedLink> {
  await tx.update(hubOneTimeLinks).set({ expiresAt: now })
    .where(and(eq(hubOneTimeLinks.userId, userId), isNull(hubOneTimeLinks.usedAt), gt(hubOneTimeLinks.expiresAt, now)))
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS[kind])
  await tx.insert(hubOneTimeLinks).values({ userId, kind, tokenHash: hashLinkToken(token), createdBy: actor, createdAt: now, expiresAt })
  return { kind, token, expiresAt }
}

export type LinkRefusal
  = | { ok: false, status: 400, code: 'invalid_link' | 'weak_password', message: string }
    | { ok: false, status: 410, code: 'link_used' | 'link_expired' | 'account_inactive', message: string }
    | { ok: false, status: 429, code: 'too_many_attempts', message: string, retryAfterSeconds: number }

export type LinkLookupResult = { ok: true, kind: OneTimeLinkKind, email: string, name: string } | LinkRefusal

/** Seconds this address still waits before its next token is checked, or 0. */
export async function linkWait(db: Db, address: string, now = new Date()): Promise<number> {
  const [row] = await db
    .select({ n: count(), last: max(hubSignInFailures.at) })
    .from(hubSignInFailures)
    .where(
      and(
        eq(hubSignInFailures.email, LINK_GUESS_KEY),
        eq(hubSignInFailures.address, address),
        gt(hubSignInFailures.at, new Date(now.getTime() - WINDOW_MS)),
      ),
    )
  if (!row?.last) return 0
  const until = new Date(row.last).getTime() + waitAfter(row.n, LINK_FREE_FAILURES)
  return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0
}

const REFUSALS = {
  invalid_link: 'This link is not a link of this hub: check it was copied whole, or ask the founder for a new one.',
  link_used: 'This link was already used: sign in with the password set then, or ask the founder for a new link.',
  link_expired: 'This link has expired: ask the founder for a new one.',
  account_inactive: 'This account is deactivated: ask the founder.',
} as const

async function refuse(db: Db, code: keyof typeof REFUSALS, address: string): Promise<LinkRefusal> {
  // Only a token that matches nothing is a guess; a used or expired one was real.
  if (code === 'invalid_link') {
    await db.transaction(async (tx) => {
      await recordFailure(tx, LINK_GUESS_KEY, address)
      await recordAudit(tx, { actor: 'anonymous', action: 'one_time_link_refused', details: { reason: code, address } })
    })
    return { ok: false, status: 400, code, message: REFUSALS[code] }
  }
  return { ok: false, status: 410, code, message: REFUSALS[code] }
}

async function findLink(
  db: Db,
  token: string,
  address: string,
  now: Date,
): Promise<{ ok: true, user: HubUser, kind: OneTimeLinkKind } | LinkRefusal> {
  const wait = await linkWait(db, address, now)
  if (wait > 0)
    return {
      ok: false,
      status: 429,
      code: 'too_many_attempts',
      message: `Too many wrong links from this address: try again in ${wait} s.`,
      retryAfterSeconds: wait,
    }
  const [row] = await db
    .select({ link: hubOneTimeLinks, user: hubUsers })
    .from(hubOneTimeLinks)
    .innerJoin(hubUsers, eq(hubUsers.id, hubOneTimeLinks.userId))
    .where(eq(hubOneTimeLinks.tokenHash, hashLinkToken(token)))
  if (!row) return await refuse(db, 'invalid_link', address)
  if (row.link.usedAt) return await refuse(db, 'link_used', address)
  if (row.link.expiresAt.getTime() <= now.getTime()) return await refuse(db, 'link_expired', address)
  if (!row.user.active) return await refuse(db, 'account_inactive', address)
  return { ok: true, user: row.user, kind: row.link.kind }
}

/** Whose link this is, for its page: nothing is consumed. */
export async function lookupLink(db: Db, token: string, address: string, now = new Date()): Promise<LinkLookupResult> {
  const found = await findLink(db, token, address, now)
  return found.ok ? { ok: true, kind: found.kind, email: found.user.email, name: found.user.name } : found
}

export type LinkPasswordResult = { ok: true, user: HubUser } | LinkRefusal

/**
 * Sets the account's password from its link: the link is used up, the account's other sessions
 * end (the session version moves on), and the person counts as signed in from this address.
 */
export async function setPasswordByLink(
  db: Db,
  token: string,
  password: string,
  address: string,
  now = new Date(),
): Promise<LinkPasswordResult> {
  const found = await findLink(db, token, address, now)
  if (!found.ok) return found
  const problem = passwordProblem(password, found.user.email)
  if (problem) return { ok: false, status: 400, code: 'weak_password', message: `The password is refused: ${problem}.` }
  const passwordHash = await hashPassword(password)
  return await db.transaction(async (tx): Promise<LinkPasswordResult> => {
    // Checked again under the row's lock: of two uses at once, one finds it used.
    const [link] = await tx
      .select()
      .from(hubOneTimeLinks)
      .where(eq(hubOneTimeLinks.tokenHash, hashLinkToken(token)))
      .for('update')
    if (!link || link.usedAt) return { ok: false, status: 410, code: 'link_used', message: REFUSALS.link_used }
    await tx.update(hubOneTimeLinks).set({ usedAt: now }).where(eq(hubOneTimeLinks.id, link.id))
    await tx
      .update(hubOneTimeLinks)
      .set({ expiresAt: now })
      .where(and(eq(hubOneTimeLinks.userId, link.userId), isNull(hubOneTimeLinks.usedAt), gt(hubOneTimeLinks.expiresAt, now)))
    const [user] = await tx
      .update(hubUsers)
      .set({ passwordHash, sessionVersion: sql`${hubUsers.sessionVersion} + 1`, lastLoginAt: now })
      .where(eq(hubUsers.id, link.userId))
      .returning()
    await recordAudit(tx, {
      actor: user!.email,
      action: 'password_set_by_link',
      details: { kind: link.kind, linkCreatedBy: link.createdBy, address },
    })
    // Also what makes this address the account's own for the sign-in limiter.
    await recordAudit(tx, { actor: user!.email, action: 'signed_in', details: { address, via: 'one_time_link' } })
    return { ok: true, user: user! }
  })
}
