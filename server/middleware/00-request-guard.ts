// Runs before every other middleware and route (files run in name order): security headers
// on every response, same-origin and JSON-only for changes (the login form excepted), the body-size limit (answered
// before the body is read), a bounded nesting depth, and no NUL or lone surrogate in any string input.
import type { H3Event } from 'h3'
import { badPathSegment, badQueryParameter, findBadText } from '../core/input-text'
import { MAX_JSON_DEPTH, SECURITY_HEADERS, STATE_CHANGING, bodyLimitFor, contentTypeRefusal, exceedsJsonDepth, isLoginForm, isMultipart, isUploadRoute, originRefusal, type Refusal } from '../core/request-policy'

const RAW_BODY = Symbol.for('h3RawBody')

function refuse(event: H3Event, refusal: Refusal, extra: Record<string, unknown> = {}): never {
  throw createError({ statusCode: refusal.status, statusMessage: refusal.message, data: { code: refusal.code, ...extra } })
}

function invalidText(event: H3Event, found: { field: string, problem: string }): never {
  refuse(event, { status: 400, code: 'invalid_text', message: `${found.field} ${found.problem}.` }, { field: found.field })
}

function tooLarge(event: H3Event, limit: number): never {
  // The rest of the body is never read: close the connection after this answer.
  setResponseHeader(event, 'connection', 'close')
  refuse(event, { status: 413, code: 'body_too_large', message: `The body is larger than ${limit} bytes.` }, { limit })
}

/** Reads the body up to limit bytes; stops reading (and refuses) as soon as it is over. */
async function readBounded(event: H3Event, limit: number): Promise<Buffer> {
  const request = event.node.req
  return await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        request.off('data', onData)
        request.pause()
        reject(Object.assign(new Error('body too large'), { tooLarge: true }))
        return
      }
      chunks.push(chunk)
    }
    request.on('data', onData)
    request.once('end', () => resolve(Buffer.concat(chunks)))
    request.once('error', reject)
  })
}

export default defineEventHandler(async (event) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) setResponseHeader(event, name, value)
  event.node.res.removeHeader('x-powered-by')

  const method = event.method
  const url = new URL(event.node.req.url ?? '/', 'http://hub.invalid')
  // Under `no-referrer` a browser sends `Origin: null` with a form: the login page's own post
  // (server/routes/login.post.ts) must carry its Origin to pass the check below.
  if (url.pathname === '/login') setResponseHeader(event, 'referrer-policy', 'same-origin')
  const badPath = badPathSegment(url.pathname)
  if (badPath) invalidText(event, badPath)
  const badQuery = badQueryParameter(url.search)
  if (badQuery) invalidText(event, badQuery)
  if (!STATE_CHANGING.has(method)) return

  const headers = event.node.req.headers
  const origin = originRefusal(method, { 'origin': headers.origin, 'host': headers.host, 'sec-fetch-site': headers['sec-fetch-site'] as string | undefined })
  if (origin) refuse(event, origin)
  const length = Number.parseInt(headers['content-length'] ?? '', 10)
  const chunked = /\bchunked\b/i.test(String(headers['transfer-encoding'] ?? ''))
  const hasBody = length > 0 || chunked
  const loginForm = isLoginForm(method, url.pathname, headers['content-type'])
  const upload = isUploadRoute(url.pathname)
  const contentType = loginForm ? null : contentTypeRefusal(method, headers['content-type'], hasBody, upload)
  if (contentType) refuse(event, contentType)
  if (!hasBody) return

  const limit = bodyLimitFor(url.pathname)
  if (length > limit) tooLarge(event, limit)
  let body: Buffer
  try {
    body = await readBounded(event, limit)
  }
  catch (error) {
    if ((error as { tooLarge?: boolean }).tooLarge) tooLarge(event, limit)
    throw error
  }
  // Files are bytes, not text: the upload route reads the form (bounded above) and checks each file itself.
  if (upload && isMultipart(headers['content-type'])) {
    ;(event.node.req as unknown as Record<symbol, unknown>)[RAW_BODY] = Promise.resolve(body)
    return
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body)
  }
  catch {
    refuse(event, { status: 400, code: 'invalid_text', message: 'The body is not valid UTF-8.' }, { field: 'body' })
  }
  if (loginForm) {
    const bad = findBadText(Object.fromEntries(new URLSearchParams(text)), 'body')
    if (bad) invalidText(event, bad)
    ;(event.node.req as unknown as Record<symbol, unknown>)[RAW_BODY] = Promise.resolve(body)
    return
  }
  if (exceedsJsonDepth(text)) refuse(event, { status: 400, code: 'too_deep', message: `The body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels.` }, { field: 'body', limit: MAX_JSON_DEPTH })
  let parsed: unknown
  try {
    parsed = text.length ? JSON.parse(text) : undefined
  }
  catch (error) {
    refuse(event, { status: 400, code: 'invalid_json', message: `The body is not valid JSON (${(error as Error).message}).` }, { field: 'body' })
  }
  const bad = findBadText(parsed, 'body')
  if (bad) invalidText(event, bad)
  // The routes read the body already read here (h3 takes it from this cache).
  ;(event.node.req as unknown as Record<symbol, unknown>)[RAW_BODY] = Promise.resolve(body)
})
