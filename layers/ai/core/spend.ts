// Spend from the ledger: totals by day, provider, feature and tenant over a period, and
// the ledger rows themselves as CSV. Days are UTC days.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { toCsv } from './csv'

export interface SpendPeriod { from: Date, to: Date }

export interface SpendBucket {
  key: string
  /** The catalog's key of `key` where the server words it (the calls made for no client). */
  labelKey?: string
  calls: number
  failures: number
  tokensIn: number
  tokensOut: number
  costUsd: number
}

/** A day's totals, and per provider its cost (byProvider), its successful calls and its tokens (in + out). */
export interface SpendByDay extends SpendBucket {
  byProvider: Record<string, number>
  callsByProvider: Record<string, number>
  tokensByProvider: Record<string, number>
}

export interface SpendReport {
  from: string
  to: string
  total: SpendBucket
  byDay: SpendByDay[]
  byProvider: SpendBucket[]
  byFeature: SpendBucket[]
  byTenant: SpendBucket[]
}

type Row = {
  key: string | null
  calls: number
  failures: number
  tokens_in: string | number
  tokens_out: string | number
  cost_usd: string | number
}

function bucket(row: Row, fallbackKey: string, fallbackLabelKey?: string): SpendBucket {
  return {
    key: row.key ?? fallbackKey,
    ...(row.key === null && fallbackLabelKey ? { labelKey: fallbackLabelKey } : {}),
    calls: Number(row.calls),
    failures: Number(row.failures),
    tokensIn: Number(row.tokens_in),
    tokensOut: Number(row.tokens_out),
    costUsd: Number(Number(row.cost_usd).toFixed(6)),
  }
}

/** A period of `days` whole UTC days ending today (included). */
export function lastDays(days: number, now: Date = new Date()): SpendPeriod {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
  return { from: new Date(end.getTime() - days * 86_400_000), to: end }
}

const grouped = (db: Db, period: SpendPeriod, key: ReturnType<typeof sql>) => db.execute<Row>(sql`
  select ${key} as key,
         count(*) filter (where outcome = 'ok')::int as calls,
         count(*) filter (where outcome = 'failed')::int as failures,
         coalesce(sum(tokens_in), 0) as tokens_in,
         coalesce(sum(tokens_out), 0) as tokens_out,
         coalesce(sum(cost_usd), 0) as cost_usd
  from ai_consumption
  where at >= ${period.from.toISOString()}::timestamptz and at < ${period.to.toISOString()}::timestamptz
  group by 1
  order by 6 desc, 1`)

export async function spendReport(db: Db, period: SpendPeriod): Promise<SpendReport> {
  const day = sql`to_char(at at time zone 'UTC', 'YYYY-MM-DD')`
  const [days, providers, features, tenants, totals, dayProvider] = await Promise.all([
    grouped(db, period, day),
    grouped(db, period, sql`provider`),
    grouped(db, period, sql`feature`),
    grouped(db, period, sql`tenant`),
    grouped(db, period, sql`'total'`),
    db.execute<{ day: string, provider: string, calls: number, tokens: string | number, cost_usd: string | number }>(sql`
      select ${day} as day, provider, count(*) filter (where outcome = 'ok')::int as calls,
             coalesce(sum(tokens_in), 0) + coalesce(sum(tokens_out), 0) as tokens, coalesce(sum(cost_usd), 0) as cost_usd
      from ai_consumption
      where at >= ${period.from.toISOString()}::timestamptz and at < ${period.to.toISOString()}::timestamptz
      group by 1, 2`),
  ])
  const perDay = new Map<string, Pick<SpendByDay, 'byProvider' | 'callsByProvider' | 'tokensByProvider'>>()
  for (const row of dayProvider) {
    const entry = perDay.get(row.day) ?? { byProvider: {}, callsByProvider: {}, tokensByProvider: {} }
    entry.byProvider[row.provider] = Number(Number(row.cost_usd).toFixed(6))
    entry.callsByProvider[row.provider] = Number(row.calls)
    entry.tokensByProvider[row.provider] = Number(row.tokens)
    perDay.set(row.day, entry)
  }
  // Every day of the period, spent or not, so a chart has no holes.
  const byDay: SpendByDay[] = []
  const found = new Map(days.map(row => [row.key!, bucket(row, '')]))
  for (let t = period.from.getTime(); t < period.to.getTime(); t += 86_400_000) {
    const key = new Date(t).toISOString().slice(0, 10)
    byDay.push({
      ...(found.get(key) ?? { key, calls: 0, failures: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 }),
      ...(perDay.get(key) ?? { byProvider: {}, callsByProvider: {}, tokensByProvider: {} }),
    })
  }
  return {
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    total: totals[0] ? bucket(totals[0], 'total') : { key: 'total', calls: 0, failures: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    byDay,
    byProvider: providers.map(row => bucket(row, '')),
    byFeature: features.map(row => bucket(row, '')),
    byTenant: tenants.map(row => bucket(row, '(no tenant)', 'ai.spend.noTenant')),
  }
}

export const LEDGER_CSV_COLUMNS = ['at', 'call_id', 'kind', 'provider', 'via', 'model', 'model_requested', 'feature', 'tenant', 'actor', 'attempt', 'outcome', 'error', 'http_status', 'tokens_in', 'tokens_out', 'cost_usd', 'cost_source', 'duration_ms', 'failover_chain'] as const

/** The ledger rows of the period as CSV (oldest first), at most `limit` rows. */
export async function ledgerCsv(db: Db, period: SpendPeriod, limit = 100_000): Promise<string> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select at, call_id, kind, provider, via, model, model_requested, feature, tenant, actor, attempt, outcome, error,
           http_status, tokens_in, tokens_out, cost_usd, cost_source, duration_ms, failover_chain
    from ai_consumption
    where at >= ${period.from.toISOString()}::timestamptz and at < ${period.to.toISOString()}::timestamptz
    order by at, id
    limit ${limit}`)
  return toCsv([...LEDGER_CSV_COLUMNS], rows.map(row => LEDGER_CSV_COLUMNS.map(column => (column === 'at' ? new Date(row.at as string | Date) : row[column]))))
}
