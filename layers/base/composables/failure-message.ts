/** The sentences per status, in English; base's catalog holds them in both languages (base.failure.…). */
const ENGLISH = {
  unauthorized: 'Your session has ended: sign in again.',
  forbidden: 'Your role does not allow this.',
  notFound: 'It does not exist (or no longer does).',
  tooLarge: 'That is too large for the hub.',
  tooMany: 'Too many requests: wait a moment and try again.',
  serverError: 'The hub met an error; its log says more. Try again in a moment.',
  unreachable: 'The hub could not be reached: check that it is running, then try again.',
} as const

function statusKey(status: number | undefined): keyof typeof ENGLISH | null {
  if (status === 401) return 'unauthorized'
  if (status === 403) return 'forbidden'
  if (status === 404) return 'notFound'
  if (status === 413) return 'tooLarge'
  if (status === 429) return 'tooMany'
  if (typeof status === 'number' && status >= 500) return 'serverError'
  if (!status) return 'unreachable'
  return null
}

/**
 * The refusals the catalogs put in words (base.refusal.<code>), with the values each route
 * sends beside its code. A code not listed keeps the route's own sentence, which names what
 * only the server knows (which client, which field).
 */
const REFUSAL_VALUES: Record<string, readonly string[]> = {
  unauthenticated: [],
  forbidden: [],
  invalid_credentials: [],
  too_many_attempts: ['retryAfterSeconds'],
  wrong_current_password: [],
  invalid_link: [],
  link_used: [],
  link_expired: [],
  account_inactive: [],
  too_many_tokens: ['max'],
  too_many_tests: ['retryAfterSeconds'],
  too_many_streams: [],
  statement_timeout: [],
  global_row_required: [],
  domain_taken: ['domain', 'owner'],
  slug_taken: ['slug'],
  not_reclassifiable: [],
  not_awaiting_approval: [],
  not_draft: [],
  last_founder: [],
  email_taken: [],
}

export const TRANSLATED_REFUSALS = Object.keys(REFUSAL_VALUES)

type Translate = (key: string, values?: Record<string, unknown>) => string

/** The catalog's sentence for a refusal's code, when it has one and the route sent its values. */
function refusalWords(data: unknown, translate: Translate | null): string | null {
  if (!translate || !data || typeof data !== 'object') return null
  const refusal = data as Record<string, unknown>
  const names = typeof refusal.code === 'string' ? REFUSAL_VALUES[refusal.code] : undefined
  if (!names) return null
  const values: Record<string, unknown> = {}
  for (const name of names) {
    const value = refusal[name]
    if (typeof value !== 'string' && typeof value !== 'number') return null
    values[name] = value
  }
  return translate(`base.refusal.${refusal.code}`, values)
}

/**
 * What a failed call to our API says, in words a person reads: the catalog's sentence for the
 * refusal's code in the hub's language, else the route's statusMessage (its clear error), else
 * a sentence for the status, else the fallback. Never the raw fetch text (`[GET] "/api/…": 404
 * …`). Works for a `$fetch` rejection and a `useFetch` error.
 */
export function failureMessage(failure: unknown, fallback: string, translate: Translate | null = hubTranslate()): string {
  if (!failure || typeof failure !== 'object') return fallback
  const shaped = failure as { data?: { statusMessage?: unknown, message?: unknown, data?: unknown }, statusCode?: number, status?: number }
  const refused = refusalWords(shaped.data?.data, translate)
  if (refused) return refused
  const said = shaped.data?.statusMessage
  if (typeof said === 'string' && said.trim()) return said
  const key = statusKey(shaped.statusCode ?? shaped.status)
  if (!key) return fallback
  return translate?.(`base.failure.${key}`) ?? ENGLISH[key]
}
