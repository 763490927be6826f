// The settings every database session runs with, on PostgreSQL (startup parameters, see
// connect) and on the embedded database (set on its one backend at start and after each
// reset between connections, see embedded-queue).
//
// plan_cache_mode = force_custom_plan: the queries are prepared (connection.ts, preparing),
// and after five runs PostgreSQL may switch a prepared statement to a generic plan, blind to
// its values. For recall's vector and id-set filters that plan cost 2.5× the custom one
// (skill routing over 1,000 skills: p50 75 → 29 ms, measured side by side). Planning these
// statements again costs well under a millisecond; the round trips preparing saves stay saved.
export const SESSION_SETTINGS = { plan_cache_mode: 'force_custom_plan' } as const

/** The same settings as SQL, for a session already open. */
export const SESSION_SETTINGS_SQL = Object.entries(SESSION_SETTINGS).map(([name, value]) => `SET ${name} = '${value}'; `).join('')

export const DEFAULT_HUB_STATEMENT_TIMEOUT_MS = 30_000

/**
 * The settings of the hub server's own pool: a statement_timeout (HUB_STATEMENT_TIMEOUT_MS,
 * default 30 s, 0 for none), so one slow or hostile query cannot hold a connection the
 * people's requests wait for. Only the hub's pool: migrations and nightly jobs build indexes
 * for minutes. PostgreSQL enforces it; the embedded database (PGlite) cannot, see
 * db/embedded-socket.ts.
 */
export function hubSessionSettings(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const raw = env.HUB_STATEMENT_TIMEOUT_MS?.trim()
  const value = raw ? Number(raw) : DEFAULT_HUB_STATEMENT_TIMEOUT_MS
  if (!Number.isInteger(value) || value < 0) throw new Error(`HUB_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds (0 for none); got "${raw}"`)
  return value > 0 ? { statement_timeout: String(value) } : {}
}
