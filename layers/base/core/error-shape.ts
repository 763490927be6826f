// One shape for every 4xx the hub answers, whatever threw it: `data` is
// { code, message, issues? } (plus whatever else the route said, such as retryAfterSeconds or
// field). A route's own code is kept; h3's "Validation Error" (a zod schema given to
// readValidatedBody & co) carries the ZodError itself, turned here into { path, message } issues;
// an error without a code gets one named after its status.

export interface ErrorIssue { path: string, message: string, code?: string }

export interface ShapedErrorData extends Record<string, unknown> {
  code: string
  message: string
  issues?: ErrorIssue[]
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request', 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed',
  406: 'not_acceptable', 408: 'request_timeout', 409: 'conflict', 410: 'gone', 411: 'length_required',
  413: 'too_large', 414: 'uri_too_long', 415: 'unsupported_media_type', 422: 'unprocessable', 429: 'too_many_requests',
}

interface ErrorLike { statusCode?: number, statusMessage?: string, message?: string, data?: unknown }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** zod's issues (a ZodError, or the array it serialises into its message), as { path, message }. */
function zodIssues(data: unknown): ErrorIssue[] | null {
  let raw: unknown = isRecord(data) ? data.issues : undefined
  if (!Array.isArray(raw) && isRecord(data) && typeof data.message === 'string' && data.message.trimStart().startsWith('[')) {
    try {
      raw = JSON.parse(data.message)
    }
    catch {
      raw = undefined
    }
  }
  if (!Array.isArray(raw)) return null
  const issues: ErrorIssue[] = []
  for (const issue of raw) {
    if (!isRecord(issue) || typeof issue.message !== 'string') return null
    const path = Array.isArray(issue.path) ? issue.path.map(String).join('.') : typeof issue.path === 'string' ? issue.path : ''
    issues.push({ path, message: issue.message, ...(typeof issue.code === 'string' ? { code: issue.code } : {}) })
  }
  return issues
}

/** A readable sentence for the issues: the first one, with where it is. */
function issuesMessage(issues: ErrorIssue[]): string {
  const first = issues[0]
  if (!first) return 'Invalid input.'
  return `${first.path || 'input'}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`
}

/** The `data` a 4xx answers with; null for any other status (a 5xx says nothing more). */
export function shapeClientErrorData(error: ErrorLike): ShapedErrorData | null {
  const status = error.statusCode ?? 500
  if (status < 400 || status > 499) return null
  const data = error.data
  // h3's validation error carries the ZodError itself: its fields are zod's, not the route's.
  const zodError = data instanceof Error || (isRecord(data) && data.name === 'ZodError')
  const issues = zodIssues(data)
  const own: Record<string, unknown> = isRecord(data) && !zodError ? { ...data } : {}
  if (typeof own.message === 'string' && own.message.trimStart().startsWith('[')) delete own.message
  const statusMessage = error.statusMessage && error.statusMessage !== 'Validation Error' ? error.statusMessage : undefined
  const errorMessage = error.message && error.message !== 'Validation Error' && !error.message.trimStart().startsWith('[') ? error.message : undefined
  const code = typeof own.code === 'string' && own.code ? own.code : issues ? 'bad_input' : CODE_BY_STATUS[status] ?? `http_${status}`
  const message = typeof own.message === 'string' && own.message
    ? own.message
    : statusMessage ?? (issues ? issuesMessage(issues) : errorMessage ?? code.replaceAll('_', ' '))
  return { ...own, code, message, ...(issues ? { issues: Array.isArray(own.issues) ? own.issues as ErrorIssue[] : issues } : {}) }
}

/** Whether the error, or one of its causes, is PostgreSQL's statement timeout (57014). */
export function isStatementTimeout(error: unknown): boolean {
  let current = error
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    if ((current as { code?: unknown }).code === '57014') return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
