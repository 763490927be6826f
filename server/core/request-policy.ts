// What every request must respect before a route sees it: the security headers, the body
// size, JSON only for state-changing requests (multipart/form-data on the upload routes only),
// and the same-origin rule. Framework-free so the unit tests and the middleware share it.
import { fileLimits, uploadBodyLimit } from '#layers/agents/core/files/limits'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

/** The routes that take files (multipart/form-data), each with its body limit from its own settings. */
const UPLOAD_ROUTES: Array<[RegExp, (env: NodeJS.ProcessEnv) => number]> = [
  [/^\/api\/agents\/files\/?$/, env => uploadBodyLimit(fileLimits(env))],
]

export function isUploadRoute(path: string): boolean {
  return UPLOAD_ROUTES.some(([pattern]) => pattern.test(path))
}

export function bodyLimitFor(path: string, env: NodeJS.ProcessEnv = process.env): number {
  const upload = UPLOAD_ROUTES.find(([pattern]) => pattern.test(path))
  if (upload) return upload[1](env)
  const configured = Number(env.HUB_BODY_LIMIT_BYTES)
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_BODY_LIMIT
}

export const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** No route's input nests deeper than this; a body that does is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text nests arrays and objects deeper than `max`, read in one pass without
 * recursion or parsing: a 10 kB body of 5,000 brackets costs a loop, not a stack.
 */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5C) i++ // a backslash: the next character is escaped
      else if (c === 0x22) inString = false
    }
    else if (c === 0x22) inString = true
    else if (c === 0x5B || c === 0x7B) {
      if (++depth > max) return true
    }
    else if (c === 0x5D || c === 0x7D) depth--
  }
  return false
}

/** Headers on every response; pages get their CSP with script hashes (server/plugins/security-headers.ts). */
export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  // JSON and files: nothing to run, nothing to frame.
  'content-security-policy': 'default-src \'none\'; frame-ancestors \'none\'; base-uri \'none\'; form-action \'none\'',
}

/** The CSP of a hub page: its own inline scripts by hash, everything else from itself. */
export function pageCsp(scriptHashes: string[]): string {
  return [
    'default-src \'self\'',
    `script-src 'self' ${scriptHashes.map(hash => `'sha256-${hash}'`).join(' ')}`.trim(),
    // Nuxt UI sets colours and positions through style attributes and inline <style>.
    'style-src \'self\' \'unsafe-inline\'',
    'img-src \'self\' data: blob:',
    'font-src \'self\' data:',
    'connect-src \'self\'',
    'object-src \'none\'',
    'base-uri \'self\'',
    'form-action \'self\'',
    'frame-ancestors \'none\'',
  ].join('; ')
}

/** The inline scripts of an HTML page (not JSON data blocks), for their CSP hashes. */
export function inlineScripts(html: string): string[] {
  const scripts: string[] = []
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const attributes = match[1] ?? ''
    if (/\bsrc\s*=/i.test(attributes)) continue
    const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1]?.toLowerCase()
    if (type && !['module', 'importmap', 'text/javascript', 'application/javascript'].includes(type)) continue
    scripts.push(match[2] ?? '')
  }
  return scripts
}

/** A refusal: status, machine-readable code, and the sentence for people. */
export interface Refusal { status: number, code: string, message: string }

/** Same-origin rule for state-changing requests: a browser's Origin must be this hub's. */
export function originRefusal(method: string, headers: { 'origin'?: string, 'host'?: string, 'sec-fetch-site'?: string }): Refusal | null {
  if (!STATE_CHANGING.has(method)) return null
  if (headers['sec-fetch-site'] === 'cross-site') return { status: 403, code: 'foreign_origin', message: 'A request from another site may not change anything here.' }
  if (!headers.origin) return null
  let originHost: string
  try {
    originHost = new URL(headers.origin).host
  }
  catch {
    return { status: 403, code: 'foreign_origin', message: `The Origin "${headers.origin}" is not this hub.` }
  }
  return originHost === headers.host ? null : { status: 403, code: 'foreign_origin', message: `The Origin "${headers.origin}" is not this hub; requests that change something must come from its own pages.` }
}

/** The one form the browser may post itself: the login page's, before its script has taken over
 *  (server/routes/login.post.ts). Its Origin is checked like any change's. */
export function isLoginForm(method: string, path: string, contentType: string | undefined): boolean {
  return method === 'POST' && path === '/login' && contentType?.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded'
}

/** Whether a content type is a multipart form (the upload routes' body). */
export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'multipart/form-data'
}

/**
 * State-changing requests carry JSON (or nothing): a form post is a cross-site forgery shape.
 * The upload routes take multipart/form-data too, and only from this hub's own pages (or a
 * client that is not a browser): the same-origin rule has refused any other site already.
 */
export function contentTypeRefusal(method: string, contentType: string | undefined, hasBody: boolean, upload = false): Refusal | null {
  if (!STATE_CHANGING.has(method)) return null
  if (!contentType) return hasBody ? { status: 403, code: 'json_required', message: 'Send the body as JSON (content-type: application/json).' } : null
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  if (type === 'application/json' || type.endsWith('+json')) return null
  if (upload && type === 'multipart/form-data') return null
  return { status: 403, code: 'json_required', message: `Requests that change something accept JSON only, not ${type}.` }
}
