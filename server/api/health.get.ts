import { sql } from 'drizzle-orm'

// Public probe: the server answers, a real table reads through the session's own search
// path, and the session state is the default one (another client's SET would show here).
export default defineEventHandler(async (event) => {
  try {
    const db = await useDb()
    const [row] = await db.execute<{ users: number, search_path: string, statement_timeout: string, in_transaction: boolean }>(sql`
      select (select count(*)::int from hub_users) as users,
             current_setting('search_path') as search_path,
             current_setting('statement_timeout') as statement_timeout,
             now() <> statement_timestamp() as in_transaction`)
    const problems = [
      row!.statement_timeout !== '0' ? `statement_timeout is ${row!.statement_timeout}` : null,
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
