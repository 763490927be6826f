import type { H3Event } from 'h3'
import type { HubRole } from '#db/schema/hub'

export interface SessionUser { id: string, email: string, name: string, role: HubRole }

/** The signed-in person, as the auth middleware verified it for this request. */
export function currentUser(event: H3Event): SessionUser {
  const user = event.context.hubUser as SessionUser | undefined
  if (!user) throw createError({ statusCode: 401, statusMessage: 'Sign in first.', data: { code: 'unauthenticated' } })
  return user
}
