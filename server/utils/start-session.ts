import type { H3Event } from 'h3'
import type { SessionUser } from '#layers/base/server/utils/session-user'
import { signIn } from '../core/sign-in'

/** Checks the credentials and sets the session cookie; a refusal is an H3 error with a machine-readable code
 *  (shared by the API's sign-in and the login form's native post). */
export async function startSession(event: H3Event, credentials: { email: string, password: string }): Promise<SessionUser> {
  const cookie = sessionCookieFor(event)
  if (cookie.refusal) throw createError({ statusCode: 400, statusMessage: cookie.refusal, data: { code: 'https_required', message: cookie.refusal } })
  const db = await useDb()
  // The connection's own address: a forwarded header is the client's to invent.
  const address = getRequestIP(event) ?? 'unknown'
  const result = await signIn(db, { ...credentials, address })
  if (!result.ok && result.reason === 'limited') {
    setResponseHeader(event, 'retry-after', result.retryAfterSeconds)
    throw createError({
      statusCode: 429,
      statusMessage: `Too many failed sign-ins for this account or address: try again in ${result.retryAfterSeconds} s.`,
      data: { code: 'too_many_attempts', retryAfterSeconds: result.retryAfterSeconds },
    })
  }
  if (!result.ok) {
    throw createError({ statusCode: 401, statusMessage: 'Wrong email or password.', data: { code: 'invalid_credentials' } })
  }
  const { user } = result
  const sessionUser: SessionUser = { id: user.id, email: user.email, name: user.name, role: user.role }
  await setUserSession(event, { user: sessionUser, version: user.sessionVersion }, { cookie: { secure: cookie.secure } })
  return sessionUser
}
