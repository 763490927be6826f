// Usage per run and per person, with per-person limits (I13): a person's runs of the last
// 24 hours (tokens, cost, count) against limits read from the environment. A run is refused
// before it starts when the person is over a limit.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/connection'

export interface PersonLimits { tokensPerDay: number, costUsdPerDay: number, runsPerDay: number }
export interface PersonUsage { email: string, runs: number, tokens: number, costUsd: number, since: string }

export function personLimits(env: Record<string, string | undefined>): PersonLimits {
  const number = (name: string, fallback: number) => {
    const raw = env[name]
    const value = raw === undefined || raw === '' ? Number.NaN : Number(raw)
    return Number.isFinite(value) && value >= 0 ? value : fallback
  }
  return {
    tokensPerDay: number('AGENT_PERSON_DAILY_TOKENS', 2_000_000),
    costUsdPerDay: number('AGENT_PERSON_DAILY_COST_USD', 20),
    runsPerDay: number('AGENT_PERSON_DAILY_RUNS', 500),
  }
}

export class UsageLimitError extends Error {
  readonly code = 'usage_limit'
  constructor(readonly limit: keyof PersonLimits, readonly usage: PersonUsage, readonly max: number) {
    super(`${usage.email} reached the daily ${limit} limit (${max})`)
    this.name = 'UsageLimitError'
  }
}

export async function personUsage(db: Db, email: string, now: Date): Promise<PersonUsage> {
  const since = new Date(now.getTime() - 24 * 3600_000)
  const rows = await db.execute<{ runs: string, tokens: string, cost: string }>(sql`
    select count(*) as runs, coalesce(sum(tokens_in + tokens_out), 0) as tokens, coalesce(sum(cost_usd), 0) as cost
    from agent_runs where acting_email = ${email} and created_at >= ${since.toISOString()}::timestamptz`)
  const row = rows[0]!
  return { email, runs: Number(row.runs), tokens: Number(row.tokens), costUsd: Number(row.cost), since: since.toISOString() }
}

export async function assertWithinLimits(db: Db, email: string, limits: PersonLimits, now: Date): Promise<PersonUsage> {
  const usage = await personUsage(db, email, now)
  if (usage.runs >= limits.runsPerDay) throw new UsageLimitError('runsPerDay', usage, limits.runsPerDay)
  if (usage.tokens >= limits.tokensPerDay) throw new UsageLimitError('tokensPerDay', usage, limits.tokensPerDay)
  if (usage.costUsd >= limits.costUsdPerDay) throw new UsageLimitError('costUsdPerDay', usage, limits.costUsdPerDay)
  return usage
}
