// A request signed with `Authorization: Bearer syn_…`: who it acts as, or why it is refused.
// Verified tokens are remembered for TOKEN_TTL_MS (forgotten at once when revoked here), so a
// token read costs what a cookie read costs: no query beyond the owner's row the session path
// also reads. last_used_at is written at most once a minute per token. Unknown, revoked and
// expired tokens are counted per address; past BAD_TOKEN_FREE of them within the sign-in
// limiter's window the address waits (the same growing waits), before any lookup.
import type { HubUser } from '#db/schema/index'
import { WINDOW_MS, waitAfter } from './sign-in'
import { createExpiringCache } from './auth-cache'
import { hashSecret, isSecretShaped, tokenRefusal, type VerifiedToken } from './tokens'

export const TOKEN_TTL_MS = 10_000
/** last_used_at is written when it is older than this. */
export const TOUCH_EVERY_MS = 60_000
/** Bad tokens one address may send within WINDOW_MS before it waits. */
export const BAD_TOKEN_FREE = 10
const MAX_ADDRESSES = 5000

export interface TokenAuthDeps {
  findToken: (secret: string) => Promise<VerifiedToken | undefined>
  touchToken: (id: string, at: Date) => Promise<void>
  account: (userId: string) => Promise<HubUser | undefined>
  now?: () => number
}

export type TokenAuth
  = | { ok: true, user: HubUser, token: VerifiedToken }
    | { ok: false, status: 401, code: 'invalid_token', message: string }
    | { ok: false, status: 429, code: 'too_many_bad_tokens', message: string, retryAfterSeconds: number }
    | { ok: false, status: 403, code: 'session_required' | 'token_scope', message: string }

const verified = createExpiringCache<string, VerifiedToken>()
/** The hashes remembered per token id, so a revocation forgets them at once. */
const hashesById = new Map<string, string>()
const badTokens = new Map<string, { n: number, last: number }>()

/** Forgets a token at once: it was just revoked. */
export function forgetToken(id: string): void {
  const hash = hashesById.get(id)
  if (hash) verified.delete(hash)
  hashesById.delete(id)
}

/** Forgets every remembered token and bad-token count (tests). */
export function forgetAllTokens(): void {
  verified.clear()
  hashesById.clear()
  badTokens.clear()
}

/** The Bearer secret of an Authorization header, or undefined when there is none. */
export function bearerSecret(header: string | undefined): string | undefined {
  if (!header) return undefined
  // Another scheme (a proxy's Basic auth in front of the hub) is not ours: the cookie decides.
  if (!/^Bearer(\s|$)/i.test(header)) return undefined
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? ''
}

function waitSeconds(address: string, now: number): number {
  const bad = badTokens.get(address)
  if (!bad) return 0
  if (now - bad.last > WINDOW_MS) {
    badTokens.delete(address)
    return 0
  }
  const wait = waitAfter(bad.n, BAD_TOKEN_FREE)
  if (wait === 0) return 0
  const until = bad.last + wait
  return until > now ? Math.ceil((until - now) / 1000) : 0
}

function countBad(address: string, now: number): void {
  const bad = badTokens.get(address)
  badTokens.delete(address)
  badTokens.set(address, { n: (bad && now - bad.last <= WINDOW_MS ? bad.n : 0) + 1, last: now })
  if (badTokens.size > MAX_ADDRESSES) badTokens.delete(badTokens.keys().next().value as string)
}

const invalid = (message: string): TokenAuth => ({ ok: false, status: 401, code: 'invalid_token', message })

/** Verifies a Bearer secret for one request (method and path), from one address. */
export async function authenticateToken(
  deps: TokenAuthDeps,
  request: { secret: string, method: string, path: string, address: string },
): Promise<TokenAuth> {
  const now = deps.now?.() ?? Date.now()
  const hash = isSecretShaped(request.secret) ? hashSecret(request.secret) : undefined
  let token = hash ? verified.get(hash, now) : undefined
  if (!token) {
    const wait = waitSeconds(request.address, now)
    if (wait > 0)
      return {
        ok: false,
        status: 429,
        code: 'too_many_bad_tokens',
        message: `Too many unknown, revoked or expired tokens from this address: try again in ${wait} s.`,
        retryAfterSeconds: wait,
      }
    token = hash ? await deps.findToken(request.secret) : undefined
    if (token && !token.revoked && token.expiresAt > now) {
      verified.set(hash!, token, Math.min(now + TOKEN_TTL_MS, token.expiresAt))
      hashesById.set(token.id, hash!)
    }
  }
  if (!token || token.revoked || token.expiresAt <= now) {
    countBad(request.address, now)
    return invalid(!token ? 'This token is unknown.' : token.revoked ? 'This token was revoked.' : 'This token has expired.')
  }
  const user = await deps.account(token.userId)
  // A disabled owner's tokens stop with their sessions.
  if (!user || !user.active) return invalid('This token\'s owner can no longer sign in.')
  const refusal = tokenRefusal(token.scopes, request.method, request.path)
  if (refusal === 'session_required')
    return {
      ok: false,
      status: 403,
      code: refusal,
      message: 'Tokens and the password are managed from a browser session, not with a token.',
    }
  if (refusal)
    return {
      ok: false,
      status: 403,
      code: refusal,
      message: `This token's scopes (${token.scopes.join(', ')}) do not allow ${request.method.toUpperCase()} here.`,
    }
  if (token.lastUsedAt === null || now - token.lastUsedAt >= TOUCH_EVERY_MS) {
    token.lastUsedAt = now
    await deps.touchToken(token.id, new Date(now))
  }
  return { ok: true, user, token }
}
