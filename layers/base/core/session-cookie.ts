// Whether the session cookie is marked Secure. A browser drops a Secure cookie set over plain
// http (except on localhost), so a cookie always marked Secure made sign-in fail silently at a
// LAN address. It follows HUB_PUBLIC_URL when set (the address people use, behind a TLS proxy
// or not), else the scheme of the request itself.

export interface CookieRequest {
  /** HUB_PUBLIC_URL, when set. */
  publicUrl: string | undefined
  /** The request's scheme as the hub sees it (X-Forwarded-Proto included: a TLS proxy's word). */
  protocol: string
  /** The host name the browser used (the Host header, without the port). */
  hostname: string
}

export type CookiePolicy = { secure: boolean, refusal: null } | { secure: true, refusal: string }

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i

export function sessionCookiePolicy(request: CookieRequest): CookiePolicy {
  const publicUrl = request.publicUrl?.trim()
  const https = publicUrl ? publicUrl.toLowerCase().startsWith('https:') : request.protocol === 'https'
  if (!https) return { secure: false, refusal: null }
  // A Secure cookie over http reaches the browser but is dropped, except on loopback names.
  if (request.protocol !== 'https' && !LOOPBACK.test(request.hostname)) {
    return { secure: true, refusal: `This hub is served at ${publicUrl}: open it there to sign in. Over plain http your browser would drop the session cookie, which is marked Secure.` }
  }
  return { secure: true, refusal: null }
}

/** HUB_PUBLIC_URL read at start: an address that is not an http(s) URL is refused. */
export function readPublicUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim()
  if (!value) return undefined
  let url: URL
  try {
    url = new URL(value)
  }
  catch {
    throw new Error(`HUB_PUBLIC_URL must be the hub's address, such as https://hub.studio.example; got "${value}"`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`HUB_PUBLIC_URL must start with https:// or http://; got "${value}"`)
  return url.origin
}
