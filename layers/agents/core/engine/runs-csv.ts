// The month's agent runs as a streamed CSV (the usage page's export, issue 34, Deliver 7):
// who ran which agent, how it was triggered, how it ended, its model, tokens and cost.
// Oldest first, a page at a time (keyset on created_at, id).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import type { MonthPeriod } from '#layers/ai/core/budgets'
import { csvChunks } from '#layers/ai/core/csv'

export const RUNS_CSV_COLUMNS = ['created_at', 'id', 'agent', 'acting_email', 'owner_email', 'trigger', 'surface', 'status', 'provider', 'model', 'iterations', 'tokens_in', 'tokens_out', 'cost_usd', 'ended_at', 'error', 'request'] as const

export function runsCsvStream(db: Db, period: MonthPeriod, pageSize = 500): AsyncGenerator<string> {
  let after: { at: string, id: string } | null = null
  return csvChunks([...RUNS_CSV_COLUMNS], async () => {
    const cursor = after ? sql`and (created_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``
    const rows = await db.execute<Record<string, unknown> & { cursor_at: string, id: string }>(sql`
      select created_at::text as cursor_at, created_at, id::text as id, agent, acting_email, owner_email, trigger, surface, status, provider, model,
             iterations, tokens_in, tokens_out, cost_usd, ended_at, error, left(request, 500) as request
      from agent_runs
      where created_at >= ${period.from.toISOString()}::timestamptz and created_at < ${period.to.toISOString()}::timestamptz ${cursor}
      order by created_at, id
      limit ${pageSize}`)
    const last = rows.at(-1)
    if (last) after = { at: last.cursor_at, id: last.id }
    return rows.map(row => RUNS_CSV_COLUMNS.map((column) => {
      const value = row[column]
      return (column === 'created_at' || column === 'ended_at') && value ? new Date(value as string | Date) : value
    }))
  })
}
