import type { H3Event } from 'h3'
import { readPublicUrl, sessionCookiePolicy, type CookiePolicy } from '../../core/session-cookie'

/** The session cookie's policy for this request (layers/base/core/session-cookie.ts). */
export function sessionCookieFor(event: H3Event): CookiePolicy {
  const hostname = (getRequestHost(event, { xForwardedHost: false }) || '').replace(/:\d+$/, '')
  return sessionCookiePolicy({ publicUrl: readPublicUrl(process.env.HUB_PUBLIC_URL), protocol: getRequestProtocol(event), hostname })
}

/** The config nuxt-auth-utils takes when it sets or clears the session cookie. */
export function sessionCookieConfig(event: H3Event): { cookie: { secure: boolean } } {
  return { cookie: { secure: sessionCookieFor(event).secure } }
}
