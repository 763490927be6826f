import { refusalWords } from '#layers/base/shared/refusals'

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
 * What a failed call to our API says, in words a person reads: the catalog's sentence for the
 * refusal's code in the hub's language, else the route's statusMessage (its clear error), else
 * a sentence for the status, else the fallback. Never the raw fetch text (`[GET] "/api/…": 404
 * …`). Works for a `$fetch` rejection and a `useFetch` error.
 */
export function failureMessage(failure: unknown, fallback: string): string {
  if (!failure || typeof failure !== 'object') return fallback
  const shaped = failure as { data?: { statusMessage?: unknown, message?: unknown, data?: unknown }, statusCode?: number, status?: number }
  const translate = hubTranslate()
  const refused = translate ? refusalWords(shaped.data?.data, translate) : null
  if (refused) return refused
  const said = shaped.data?.statusMessage
  if (typeof said === 'string' && said.trim()) return said
  const key = statusKey(shaped.statusCode ?? shaped.status)
  if (!key) return fallback
  return translate?.(`base.failure.${key}`) ?? ENGLISH[key]
}
