import { sql } from 'drizzle-orm'
import { hubSessionSettings } from '#db/session-settings'

// Public probe: the server answers, a real table reads through the session's own search
// path, and the session state is the default one (another client's SET would show here).
export default defineEventHandler(async (event) => {
  // Which start of the hub answers: the launcher waits for its own (scripts/start.ts).
  if (process.env.HUB_INSTANCE_ID) setResponseHeader(event, 'x-hub-instance', process.env.HUB_INSTANCE_ID)
  try {
    const db = await useDb()
    const [row] = await db.execute<{ users: number, search_path: string, statement_timeout: string, in_transaction: boolean }>(sql`
      select (select count(*)::int from hub_users) as users,
             current_setting('search_path') as search_path,
             (select setting from pg_settings where name = 'statement_timeout') as statement_timeout,
             now() <> statement_timestamp() as in_transaction`)
    // The hub's own timeout (HUB_STATEMENT_TIMEOUT_MS, in ms; the embedded database may ignore
    // it), or none: any other value is another client's SET showing through.
    const expected = new Set(['0', hubSessionSettings(process.env).statement_timeout ?? '0'])
    const problems = [
      !expected.has(row!.statement_timeout) ? `statement_timeout is ${row!.statement_timeout} ms` : null,
      !/\bpublic\b/.test(row!.search_path) ? `search_path is "${row!.search_path}"` : null,
      row!.in_transaction ? 'the connection is inside a transaction' : null,
    ].filter(Boolean)
    if (problems.length) {
      setResponseStatus(event, 503)
      return { status: 'degraded' as const, database: 'ok' as const, session: problems.join('; ') }
    }
    return { status: 'ok' as const, database: 'ok' as const }
  }
  catch {
    setResponseStatus(event, 503)
    return { status: 'degraded' as const, database: 'unreachable' as const }
  }
})
