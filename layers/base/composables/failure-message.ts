/**
 * What a failed call to our API says, in words a person reads: the route's statusMessage
 * (its clear error), else a sentence for the status, else the fallback. Never the raw fetch
 * text (`[GET] "/api/…": 404 …`). Works for a `$fetch` rejection and a `useFetch` error.
 */
export function failureMessage(failure: unknown, fallback: string): string {
  if (!failure || typeof failure !== 'object') return fallback
  const shaped = failure as { data?: { statusMessage?: unknown, message?: unknown }, statusCode?: number, status?: number }
  const said = shaped.data?.statusMessage
  if (typeof said === 'string' && said.trim()) return said
  const status = shaped.statusCode ?? shaped.status
  if (status === 401) return 'Your session has ended: sign in again.'
  if (status === 403) return 'Your role does not allow this.'
  if (status === 404) return 'It does not exist (or no longer does).'
  if (status === 413) return 'That is too large for the hub.'
  if (status === 429) return 'Too many requests: wait a moment and try again.'
  if (typeof status === 'number' && status >= 500) return 'The hub met an error; its log says more. Try again in a moment.'
  if (!status) return 'The hub could not be reached: check that it is running, then try again.'
  return fallback
}
