import { LoginBody } from '../../core/schemas'
import { signIn } from '../../core/sign-in'

export default defineEventHandler(async (event) => {
  const { email, password } = await readValidatedBody(event, LoginBody.parse)
  const cookie = sessionCookieFor(event)
  if (cookie.refusal) throw createError({ statusCode: 400, statusMessage: cookie.refusal, data: { code: 'https_required', message: cookie.refusal } })
  const db = await useDb()
  // The connection's own address: a forwarded header is the client's to invent.
  const address = getRequestIP(event) ?? 'unknown'
  const result = await signIn(db, { email, password, address })
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
  await setUserSession(event, { user: { id: user.id, email: user.email, name: user.name, role: user.role }, version: user.sessionVersion }, { cookie: { secure: cookie.secure } })
  return { user: { id: user.id, email: user.email, name: user.name, role: user.role } }
})
