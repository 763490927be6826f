// A signed-in person changes their own password: every other session of theirs ends
// (the session version moves on), this one is sealed again with the new version.
import { PasswordChangeBody } from '../../core/schemas'
import { changePassword } from '../../core/sessions'
import { forgetSignedInUser } from '../../core/auth-cache'

export default defineEventHandler(async (event) => {
  const me = currentUser(event)
  const { currentPassword, newPassword } = await readValidatedBody(event, PasswordChangeBody.parse)
  // The connection's own address, as at sign-in: guesses here count against the same limiter.
  const result = await changePassword(await useDb(), me.id, currentPassword, newPassword, getRequestIP(event) ?? 'unknown')
  forgetSignedInUser(me.id)
  if (!result.ok) {
    if (result.retryAfterSeconds) setResponseHeader(event, 'retry-after', result.retryAfterSeconds)
    throw createError({
      statusCode: result.status,
      statusMessage: result.message,
      data: { code: result.code, ...(result.retryAfterSeconds ? { retryAfterSeconds: result.retryAfterSeconds } : {}) },
    })
  }
  await replaceUserSession(event, { user: me, version: result.sessionVersion }, sessionCookieConfig(event))
  return { changed: true }
})
