// The usage page's figures (issue 34, Deliver 7): a month's ledger by person, agent, client
// and model, the included and credit parts apart (see budgets.ts for the counters), every
// budget with its status, and the month's ledger as a streamed CSV.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { budgetStatus, listBudgets, type BudgetStatus, type MonthPeriod } from './budgets'
import { csvChunks } from './csv'

export interface UsageBucket {
  key: string
  /** A readable name where one exists (a client's name), else the key. */
  label: string
  /** The catalog's key of the label where the server words it (the calls made for no one). */
  labelKey?: string
  calls: number
  tokens: number
  costUsd: number
  includedTokens: number
  creditTokens: number
  creditCostUsd: number
}

export interface UsageReport {
  month: string
  from: string
  to: string
  total: UsageBucket
  byPerson: UsageBucket[]
  byAgent: UsageBucket[]
  byClient: UsageBucket[]
  byModel: UsageBucket[]
  budgets: BudgetStatus[]
}

type Row = {
  key: string | null
  label: string | null
  calls: number
  tokens: string
  cost: string
  included_tokens: string
  credit_tokens: string
  credit_cost: string
}

const INCLUDED = sql`(c.bucket = 'allowance' or c.provider = 'offline')`

function grouped(db: Db, period: MonthPeriod, key: SQL, label: SQL = key, join: SQL = sql``) {
  return db.execute<Row>(sql`
    select ${key} as key, ${label} as label,
           count(*) filter (where c.outcome = 'ok')::int as calls,
           coalesce(sum(c.tokens_in + c.tokens_out), 0) as tokens,
           coalesce(sum(c.cost_usd), 0) as cost,
           coalesce(sum(c.tokens_in + c.tokens_out) filter (where ${INCLUDED}), 0) as included_tokens,
           coalesce(sum(c.tokens_in + c.tokens_out) filter (where not ${INCLUDED}), 0) as credit_tokens,
           coalesce(sum(c.cost_usd) filter (where not ${INCLUDED}), 0) as credit_cost
    from ai_consumption c ${join}
    where c.at >= ${period.from.toISOString()}::timestamptz and c.at < ${period.to.toISOString()}::timestamptz
    group by 1, 2
    order by 5 desc, 4 desc, 1`)
}

const bucket = (fallback: string, fallbackKey?: string) => (row: Row): UsageBucket => ({
  key: row.key ?? fallback,
  label: row.label ?? row.key ?? fallback,
  ...(row.key === null && fallbackKey ? { labelKey: fallbackKey } : {}),
  calls: Number(row.calls),
  tokens: Number(row.tokens),
  costUsd: Number(Number(row.cost).toFixed(6)),
  includedTokens: Number(row.included_tokens),
  creditTokens: Number(row.credit_tokens),
  creditCostUsd: Number(Number(row.credit_cost).toFixed(6)),
})

export async function usageReport(db: Db, period: MonthPeriod): Promise<UsageReport> {
  const [total, persons, agents, clients, models, budgets] = await Promise.all([
    grouped(db, period, sql`'total'`),
    grouped(db, period, sql`c.actor`),
    grouped(db, period, sql`c.agent`),
    grouped(db, period, sql`c.tenant`, sql`cl.name`, sql`left join clients cl on cl.slug = c.tenant`),
    grouped(db, period, sql`c.provider || '/' || c.model`),
    listBudgets(db),
  ])
  return {
    month: period.month,
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    total: total[0] ? bucket('total')(total[0]) : { key: 'total', label: 'total', calls: 0, tokens: 0, costUsd: 0, includedTokens: 0, creditTokens: 0, creditCostUsd: 0 },
    byPerson: persons.map(bucket('(no person)', 'ai.usage.none.person')),
    byAgent: agents.map(bucket('(no agent)', 'ai.usage.none.agent')),
    byClient: clients.map(bucket('(no client)', 'ai.usage.none.client')),
    byModel: models.map(bucket('')),
    budgets: await Promise.all(budgets.map(budget => budgetStatus(db, budget.subjectKind, budget.subject, period, budget))),
  }
}

export const USAGE_LEDGER_COLUMNS = ['at', 'call_id', 'kind', 'provider', 'via', 'model', 'model_requested', 'feature', 'tenant', 'actor', 'agent', 'bucket', 'attempt', 'outcome', 'error', 'http_status', 'tokens_in', 'tokens_out', 'cost_usd', 'cost_source', 'duration_ms', 'failover_chain'] as const

/** The month's ledger rows as CSV in write order, read a page at a time (keyset on id) so a large month streams. */
export function ledgerCsvStream(db: Db, period: MonthPeriod, pageSize = 1000): AsyncGenerator<string> {
  let after = 0
  return csvChunks([...USAGE_LEDGER_COLUMNS], async () => {
    const rows = await db.execute<Record<string, unknown>>(sql`
      select id, at, call_id, kind, provider, via, model, model_requested, feature, tenant, actor, agent, bucket, attempt, outcome, error,
             http_status, tokens_in, tokens_out, cost_usd, cost_source, duration_ms, failover_chain
      from ai_consumption
      where at >= ${period.from.toISOString()}::timestamptz and at < ${period.to.toISOString()}::timestamptz and id > ${after}
      order by id
      limit ${pageSize}`)
    if (rows.length > 0) after = Number(rows.at(-1)!.id)
    return rows.map(row => USAGE_LEDGER_COLUMNS.map(column => (column === 'at' ? new Date(row.at as string | Date) : row[column])))
  })
}
