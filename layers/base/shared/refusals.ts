// A refusal of the hub's API in the catalogs' words: its code names the sentence, the values
// the route sends beside the code fill it in (failureMessage says it in the hub's language).

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

/** `t(key, values)` of the hub's catalogs. */
export type Translate = (key: string, values?: Record<string, string | number>) => string

/** The catalog's sentence for a refusal's code, when it has one and the route sent its values. */
export function refusalWords(data: unknown, translate: Translate): string | null {
  if (!data || typeof data !== 'object') return null
  const refusal = data as Record<string, unknown>
  const names = typeof refusal.code === 'string' ? REFUSAL_VALUES[refusal.code] : undefined
  if (!names) return null
  const values: Record<string, string | number> = {}
  for (const name of names) {
    const value = refusal[name]
    if (typeof value !== 'string' && typeof value !== 'number') return null
    values[name] = value
  }
  return translate(`base.refusal.${refusal.code}`, values)
}
