// Every /api route goes through here: the policy in shared/access.ts decides.
// The role and the session version come from hub_users (remembered for at most a second,
// forgotten at once when the hub itself changes the account: server/core/auth-cache.ts), so a
// demoted or disabled account loses its rights at once, and a cookie from before a sign-out
// or a password change is refused. `Authorization: Bearer syn_…` (a personal access token,
// server/core/token-auth.ts) acts as its owner, with the same role checks, within its scopes.
import type { H3Event } from 'h3'
import type { HubRole } from '#db/schema/hub'
import { requirementFor, roleAllows } from '#shared/access'
import { findUserById } from '../core/users'
import { rememberedAccount, sealedSessions, sessionExpiry, type CachedSession } from '../core/auth-cache'
import { authenticateToken, bearerSecret } from '../core/token-auth'
import { findToken, touchToken } from '../core/tokens'

async function sessionOf(event: H3Event): Promise<CachedSession | undefined> {
  // Without the event: the per-request form applies the environment again each time (a fifth of a request's cost).
  const { name, maxAge } = useRuntimeConfig().session as { name: string, maxAge: number }
  const sealed = getCookie(event, name)
  if (!sealed) return undefined
  const known = sealedSessions.get(sealed)
  if (known) return known
  const session = await getUserSession(event)
  if (!session.user?.id) return undefined
  const found: CachedSession = { userId: session.user.id, version: session.version as number | undefined }
  // h3 keeps the unsealed session's creation time on the request; the seal's age limit counts from it.
  const createdAt = (event.context.sessions as Record<string, { createdAt?: number }> | undefined)?.[name]?.createdAt
  sealedSessions.set(sealed, found, sessionExpiry(createdAt, maxAge))
  return found
}

function allowRole(role: HubRole, minRole: HubRole): void {
  if (roleAllows(role, minRole)) return
  throw createError({
    statusCode: 403,
    statusMessage: `This needs the ${minRole} role; you are signed in as ${role}.`,
    data: { code: 'forbidden', requiredRole: minRole, role },
  })
}

export default defineEventHandler(async (event) => {
  const path = event.path
  if (!path.startsWith('/api/') && path !== '/api') return
  const requirement = requirementFor(event.method, path)
  if (requirement.public) return
  const loadAccount = async (id: string) => await findUserById(await useDb(), id)
  const secret = bearerSecret(getRequestHeader(event, 'authorization'))
  if (secret !== undefined) {
    const auth = await authenticateToken({
      findToken: async value => await findToken(await useDb(), value),
      touchToken: async (id, at) => await touchToken(await useDb(), id, at),
      account: async id => await rememberedAccount(id, loadAccount),
    }, { secret, method: event.method, path, address: getRequestIP(event) ?? 'unknown' })
    if (!auth.ok) {
      if (auth.status === 429) setResponseHeader(event, 'retry-after', auth.retryAfterSeconds)
      throw createError({
        statusCode: auth.status,
        statusMessage: auth.message,
        data: { code: auth.code, ...(auth.status === 429 ? { retryAfterSeconds: auth.retryAfterSeconds } : {}) },
      })
    }
    allowRole(auth.user.role, requirement.minRole)
    event.context.hubUser = { id: auth.user.id, email: auth.user.email, name: auth.user.name, role: auth.user.role }
    event.context.hubToken = { id: auth.token.id, prefix: auth.token.prefix }
    return
  }
  const session = await sessionOf(event)
  const user = session ? await rememberedAccount(session.userId, loadAccount) : undefined
  if (!user || !user.active || user.sessionVersion !== session!.version) {
    // A cookie of an older version is refused but left alone: a poll sent with it just before
    // this browser's own password change answered would otherwise clear the renewed cookie and
    // sign the person out. An account gone or disabled has no newer cookie to lose. (Clearing
    // never revokes newer sessions: the clear hook acts on a current version only,
    // server/plugins/session-revocation.ts.)
    if (session && (!user || !user.active)) await clearUserSession(event, sessionCookieConfig(event))
    throw createError({ statusCode: 401, statusMessage: 'Sign in first.', data: { code: 'unauthenticated' } })
  }
  allowRole(user.role, requirement.minRole)
  event.context.hubUser = { id: user.id, email: user.email, name: user.name, role: user.role }
})
