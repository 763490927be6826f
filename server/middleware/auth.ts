// Every /api route goes through here: the policy in server/core/access.ts decides.
// The role comes from hub_users at each request, so a demoted or disabled account
// loses its rights at once, not when its cookie expires; so does the session version, so a
// cookie from before a sign-out or a password change is refused.
import { requirementFor, roleAllows } from '../core/access'
import { findUserById } from '../core/users'

export default defineEventHandler(async (event) => {
  const path = event.path
  if (!path.startsWith('/api/') && path !== '/api') return
  const requirement = requirementFor(event.method, path)
  if (requirement.public) return
  const session = await getUserSession(event)
  const user = session.user?.id ? await findUserById(await useDb(), session.user.id) : undefined
  if (!user || !user.active || user.sessionVersion !== session.version) {
    // Clearing a revoked cookie must not revoke the account's newer sessions: the clear
    // hook only acts on a current version (server/plugins/session-revocation.ts).
    if (session.user) await clearUserSession(event)
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
