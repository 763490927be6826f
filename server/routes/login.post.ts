import { LoginBody } from '../core/schemas'

// The login form posted by the browser itself: a person who presses "Sign in" before the page's
// script has taken over the form (a slow connection, a loaded machine) is signed in all the
// same, then sent on with a 303 — or back to the form with the refusal's code in the address.
const SAFE_NEXT = /^\/hub(?:[/?#]|$)/

export default defineEventHandler(async (event) => {
  const query = getQuery(event)
  const next = typeof query.redirect === 'string' && SAFE_NEXT.test(query.redirect) ? query.redirect : '/hub'
  // A form from another site (it would sign this browser into someone else's account) is
  // refused before this by the request guard's Origin check (server/middleware/00-request-guard.ts).
  const parsed = LoginBody.safeParse(await readBody(event).catch(() => undefined))
  const back = (code: string) => `/login?${new URLSearchParams({ error: code, ...(next === '/hub' ? {} : { redirect: next }) })}`
  if (!parsed.success) return sendRedirect(event, back('invalid_input'), 303)
  try {
    await startSession(event, parsed.data)
  }
  catch (error) {
    const code = (error as { data?: { code?: string } }).data?.code ?? 'sign_in_failed'
    console.warn(`[login-form] a sign-in posted without script was refused: ${code}`)
    return sendRedirect(event, back(code), 303)
  }
  return sendRedirect(event, next, 303)
})
