// Every /api route goes through here: the policy in server/core/access.ts decides.
// The role and the session version come from hub_users (remembered for at most a second,
// forgotten at once when the hub itself changes the account: server/core/auth-cache.ts), so a
// demoted or disabled account loses its rights at once, and a cookie from before a sign-out
// or a password change is refused.
import type { H3Event } from 'h3'
import { requirementFor, roleAllows } from '../core/access'
import { findUserById } from '../core/users'
import { rememberedAccount, sealedSessions, sessionExpiry, type CachedSession } from '../core/auth-cache'

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

export default defineEventHandler(async (event) => {
  const path = event.path
  if (!path.startsWith('/api/') && path !== '/api') return
  const requirement = requirementFor(event.method, path)
  if (requirement.public) return
  const session = await sessionOf(event)
  const user = session ? await rememberedAccount(session.userId, async id => await findUserById(await useDb(), id)) : undefined
  if (!user || !user.active || user.sessionVersion !== session!.version) {
    // A cookie of an older version is refused but left alone: a poll sent with it just before
    // this browser's own password change answered would otherwise clear the renewed cookie and
    // sign the person out. An account gone or disabled has no newer cookie to lose. (Clearing
    // never revokes newer sessions: the clear hook acts on a current version only,
    // server/plugins/session-revocation.ts.)
    if (session && (!user || !user.active)) await clearUserSession(event, sessionCookieConfig(event))
    throw createError({ statusCode: 401, statusMessage: 'Sign in first.', data: { code: 'unauthenticated' } })
  }
  if (!roleAllows(user.role, requirement.minRole)) {
    throw createError({
      statusCode: 403,
      statusMessage: `This needs the ${requirement.minRole} role; you are signed in as ${user.role}.`,
      data: { code: 'forbidden', requiredRole: requirement.minRole, role: user.role },
    })
  }
  event.context.hubUser = { id: user.id, email: user.email, name: user.name, role: user.role }
})
