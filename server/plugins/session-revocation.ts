// Signing out (DELETE /api/_auth/session, nuxt-auth-utils) revokes the session for real:
// the account's session version moves on, so a copy of the cookie no longer works.
import { revokeSessions } from '../core/sessions'
import { forgetSignedInUser } from '../core/auth-cache'

export default defineNitroPlugin(() => {
  sessionHooks.hook('clear', async (session) => {
    const data = session as { user?: { id?: string }, version?: number }
    if (!data.user?.id) return
    if (await revokeSessions(await useDb(), data.user.id, data.version)) forgetSignedInUser(data.user.id)
  })
})
