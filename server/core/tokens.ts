// Personal access tokens, stored: created (the secret answered once, only its SHA-256 kept),
// listed, revoked. Every change writes its hub_audit row in the same transaction. What a token
// may reach (its scopes against a request) is tokenRefusal, read by the auth middleware.
import { createHash, randomBytes } from 'node:crypto'
import { and, desc, eq, isNull, gt, sql } from 'drizzle-orm'
import type { z } from 'zod'
import type { Db } from '#db/connection'
import { recordAudit } from '#db/audit'
import { hubTokens, hubUsers, type HubRole, type HubToken } from '#db/schema/index'
import type { TokenCreate, TokenCreated, TokenScope, TokenView } from '#shared/tokens'

export const TOKEN_PREFIX = 'syn_'
/** The characters of a secret shown to recognise it: `syn_` and eight more. */
const VISIBLE = TOKEN_PREFIX.length + 8
/** Live (unrevoked, unexpired) tokens one person may hold: a runaway script cannot fill the table. */
export const MAX_LIVE_TOKENS = 50

export interface TokenActor { id: string, email: string, role: HubRole }

export type TokenChange
  = | { ok: true, token: TokenView }
    | { ok: false, code: 'not_found' }

/** The secret as `syn_` and 32 random bytes in base64url (43 characters). */
export function newSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url')
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Whether a string looks like a secret this hub makes (before any lookup). */
export function isSecretShaped(value: string): boolean {
  return /^syn_[\w-]{43}$/.test(value)
}

function toView(row: HubToken, owner: { id: string, email: string, name: string }, now: Date): TokenView {
  const state = row.revokedAt ? 'revoked' : row.expiresAt <= now ? 'expired' : 'active'
  return {
    id: row.id, name: row.name, prefix: row.prefix, scopes: row.scopes as TokenScope[], state,
    expiresAt: row.expiresAt.toISOString(), lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null, createdAt: row.createdAt.toISOString(), owner,
  }
}

export type TokenCreation = { ok: true, created: TokenCreated } | { ok: false, code: 'too_many_tokens', max: number }

export async function createToken(
  db: Db,
  owner: TokenActor,
  input: z.output<typeof TokenCreate>,
  now = new Date(),
): Promise<TokenCreation> {
  const secret = newSecret()
  const expiresAt = new Date(now.getTime() + input.expiresInDays * 24 * 60 * 60_000)
  return await db.transaction(async (tx) => {
    // One person's creations one at a time: the count below stays true until the insert.
    await tx.select({ id: hubUsers.id }).from(hubUsers).where(eq(hubUsers.id, owner.id)).for('update')
    const [live] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(hubTokens)
      .where(and(eq(hubTokens.userId, owner.id), isNull(hubTokens.revokedAt), gt(hubTokens.expiresAt, now)))
    if ((live?.n ?? 0) >= MAX_LIVE_TOKENS) return { ok: false, code: 'too_many_tokens', max: MAX_LIVE_TOKENS }
    const [row] = await tx
      .insert(hubTokens)
      .values({
        userId: owner.id,
        name: input.name,
        prefix: secret.slice(0, VISIBLE),
        secretHash: hashSecret(secret),
        scopes: input.scopes,
        expiresAt,
      })
      .returning()
    const [person] = await tx
      .select({ id: hubUsers.id, email: hubUsers.email, name: hubUsers.name })
      .from(hubUsers)
      .where(eq(hubUsers.id, owner.id))
    const token = toView(row!, person ?? { id: owner.id, email: owner.email, name: owner.email }, now)
    await recordAudit(tx, { actor: owner.email, action: 'token_created', target: token.prefix, details: { after: auditable(token) } })
    return { ok: true, created: { token, secret } }
  })
}

/** A person's tokens, newest first; `everyone` (the founder's view) lists every person's. */
export async function listTokens(db: Db, scope: { userId: string } | 'everyone', now = new Date()): Promise<TokenView[]> {
  const rows = await db.select({ token: hubTokens, owner: { id: hubUsers.id, email: hubUsers.email, name: hubUsers.name } })
    .from(hubTokens).innerJoin(hubUsers, eq(hubUsers.id, hubTokens.userId))
    .where(scope === 'everyone' ? undefined : eq(hubTokens.userId, scope.userId))
    .orderBy(desc(hubTokens.createdAt))
  return rows.map(row => toView(row.token, row.owner, now))
}

/** Revokes a token of the actor's own (any token for the founder); revoking twice changes nothing. */
export async function revokeToken(db: Db, id: string, actor: TokenActor, now = new Date()): Promise<TokenChange> {
  return await db.transaction(async (tx) => {
    const [found] = await tx.select({ token: hubTokens, owner: { id: hubUsers.id, email: hubUsers.email, name: hubUsers.name } })
      .from(hubTokens).innerJoin(hubUsers, eq(hubUsers.id, hubTokens.userId)).where(eq(hubTokens.id, id)).for('update', { of: hubTokens })
    // Someone else's token is answered as missing: its existence is not theirs to learn.
    if (!found || (found.token.userId !== actor.id && actor.role !== 'founder')) return { ok: false, code: 'not_found' }
    if (found.token.revokedAt) return { ok: true, token: toView(found.token, found.owner, now) }
    const [updated] = await tx.update(hubTokens).set({ revokedAt: now }).where(eq(hubTokens.id, id)).returning()
    const token = toView(updated!, found.owner, now)
    await recordAudit(tx, { actor: actor.email, action: 'token_revoked', target: token.prefix, details: { before: auditable(toView(found.token, found.owner, now)), after: auditable(token) } })
    return { ok: true, token }
  })
}

/** What the auth middleware needs of a token, found by its secret's hash. */
export interface VerifiedToken {
  id: string
  userId: string
  prefix: string
  scopes: TokenScope[]
  expiresAt: number
  revoked: boolean
  lastUsedAt: number | null
}

export async function findToken(db: Db, secret: string): Promise<VerifiedToken | undefined> {
  const [row] = await db.select().from(hubTokens).where(eq(hubTokens.secretHash, hashSecret(secret)))
  if (!row) return undefined
  return {
    id: row.id, userId: row.userId, prefix: row.prefix, scopes: row.scopes as TokenScope[], expiresAt: row.expiresAt.getTime(),
    revoked: row.revokedAt !== null, lastUsedAt: row.lastUsedAt?.getTime() ?? null,
  }
}

export async function touchToken(db: Db, id: string, at: Date): Promise<void> {
  await db.update(hubTokens).set({ lastUsedAt: at }).where(eq(hubTokens.id, id))
}

/** Routes a token never reaches, whatever its scopes: a leaked token must not mint more, nor change the password. */
const SESSION_ONLY = /^\/api\/(tokens|auth|_auth)(\/|$)/
const READS = new Set(['GET', 'HEAD'])

/** Why a token's scopes refuse a request, or null when they allow it (the role is checked apart). */
export function tokenRefusal(scopes: readonly string[], method: string, path: string): 'session_required' | 'token_scope' | null {
  // Read as the router might: percent-decoded, slashes collapsed, any case.
  let route: string
  try {
    route = decodeURIComponent(path.split('?')[0]!).replace(/\/+/g, '/').toLowerCase()
  }
  catch {
    return 'token_scope'
  }
  if (SESSION_ONLY.test(route)) return 'session_required'
  // The API's own description holds no data: a script reads it to find its way.
  if (route === '/api/openapi.json' && READS.has(method.toUpperCase())) return null
  const domain = /^\/api\/([^/]+)/.exec(route)?.[1]
  if (!domain) return 'token_scope'
  if (scopes.includes(`${domain}:write`)) return null
  return READS.has(method.toUpperCase()) && scopes.includes(`${domain}:read`) ? null : 'token_scope'
}

/** What the audit keeps of a token: never the secret. */
function auditable(token: TokenView): Record<string, unknown> {
  const { createdAt: _created, lastUsedAt: _used, ...fields } = token
  return { ...fields, owner: token.owner.email }
}
