// Public: sets the password from a one-time link, which is then used up; every other session of
// the account ends, and this browser is signed in (or sent to sign in when the cookie could not
// be kept over plain http: layers/base/core/session-cookie.ts).
import { setPasswordByLink } from '#server/core/one-time-links'
import { forgetSignedInUser } from '#server/core/auth-cache'
import { LinkPassword } from '#shared/people'

export default defineEventHandler(async (event) => {
  const { token, password } = validInput(LinkPassword, await readBody(event))
  const result = await setPasswordByLink(await useDb(), token, password, getRequestIP(event) ?? 'unknown')
  if (!result.ok) throwLinkRefusal(event, result)
  const { user } = result
  forgetSignedInUser(user.id)
  const cookie = sessionCookieFor(event)
  if (cookie.refusal) return { signedIn: false, email: user.email }
  const sessionUser = { id: user.id, email: user.email, name: user.name, role: user.role }
  // As at sign-in: setting (not replacing) the session never ends the sessions of someone already signed in in this browser.
  await setUserSession(event, { user: sessionUser, version: user.sessionVersion }, { cookie: { secure: cookie.secure } })
  return { signedIn: true, email: user.email }
})
