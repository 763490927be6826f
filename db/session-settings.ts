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
