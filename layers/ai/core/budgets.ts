// Monthly budgets per person and per custom agent (issue 34, Deliver 7; seed 003 §10.6,
// §16.5). Usage is computed from the ledger for the calendar month (UTC), never stored, and
// split into the seed's counters, kept apart:
//   included  — calls in the 'allowance' bucket (a model the studio marks included, or the
//               offline provider): 0 credit, never counted against a budget;
//   credit    — calls in the 'premium' bucket: what the budget limits;
//   allocated — the part of the credit within the budget (min(credit, limit), per dimension);
//   overBudget — credit − allocated: what runs already going spent past the limit.
// A person's usage is every ledger row whose actor is their email; an agent's, every row its
// runs wrote (the agent column).
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { aiBudgets, type AiBudget, type BudgetSubject } from '#db/schema/budgets'
import { opsAlerts } from '#db/schema/ops'

export interface Counter { tokens: number, costUsd: number }
export interface BudgetLimits { tokensMonthly: number | null, costUsdMonthly: number | null }
export interface BudgetUsage { included: Counter, credit: Counter, allocated: Counter, overBudget: Counter }

export interface BudgetStatus {
  kind: BudgetSubject
  subject: string
  month: string
  limits: BudgetLimits
  usage: BudgetUsage
  /** The highest share of a limit used (0 with no limit); 1 = reached. */
  ratio: number
  reached: boolean
}

/** The thresholds a notification is written for, once each per subject and month. */
export const BUDGET_THRESHOLDS = [50, 80, 100] as const
export const BUDGET_ALERT_KIND = 'budget_threshold'

export interface MonthPeriod { month: string, from: Date, to: Date }

/** The calendar month (UTC) of `month` ('YYYY-MM') or of `now`. */
export function monthPeriod(month: string | undefined, now: Date = new Date()): MonthPeriod {
  const [year, index] = month ? month.split('-').map(Number) as [number, number] : [now.getUTCFullYear(), now.getUTCMonth() + 1]
  const from = new Date(Date.UTC(year, index - 1, 1))
  const to = new Date(Date.UTC(year, index, 1))
  return { month: from.toISOString().slice(0, 7), from, to }
}

const INCLUDED = sql`(bucket = 'allowance' or provider = 'offline')`

function subjectFilter(kind: BudgetSubject, subject: string) {
  return kind === 'person' ? sql`actor = ${subject}` : sql`agent = ${subject}`
}

const clampCounter = (credit: Counter, limits: BudgetLimits): Counter => ({
  tokens: limits.tokensMonthly === null ? credit.tokens : Math.min(credit.tokens, limits.tokensMonthly),
  costUsd: limits.costUsdMonthly === null ? credit.costUsd : Math.min(credit.costUsd, limits.costUsdMonthly),
})

const round = (value: number) => Number(value.toFixed(6))

export async function subjectUsage(
  db: Db,
  kind: BudgetSubject,
  subject: string,
  period: MonthPeriod,
  limits: BudgetLimits,
): Promise<BudgetUsage> {
  const [row] = await db.execute<{ included_tokens: string, included_cost: string, credit_tokens: string, credit_cost: string }>(sql`
    select coalesce(sum(tokens_in + tokens_out) filter (where ${INCLUDED}), 0) as included_tokens,
           coalesce(sum(cost_usd) filter (where ${INCLUDED}), 0) as included_cost,
           coalesce(sum(tokens_in + tokens_out) filter (where not ${INCLUDED}), 0) as credit_tokens,
           coalesce(sum(cost_usd) filter (where not ${INCLUDED}), 0) as credit_cost
    from ai_consumption
    where ${subjectFilter(kind, subject)} and at >= ${period.from.toISOString()}::timestamptz and at < ${period.to.toISOString()}::timestamptz`)
  // The included list price is shown, but an included call costs 0 credit.
  const included = { tokens: Number(row!.included_tokens), costUsd: round(Number(row!.included_cost)) }
  const credit = { tokens: Number(row!.credit_tokens), costUsd: round(Number(row!.credit_cost)) }
  const allocated = clampCounter(credit, limits)
  return {
    included,
    credit,
    allocated,
    overBudget: { tokens: credit.tokens - allocated.tokens, costUsd: round(credit.costUsd - allocated.costUsd) },
  }
}

export function budgetRatio(usage: BudgetUsage, limits: BudgetLimits): number {
  const shares: number[] = []
  if (limits.tokensMonthly !== null) shares.push(limits.tokensMonthly === 0 ? 1 : usage.credit.tokens / limits.tokensMonthly)
  if (limits.costUsdMonthly !== null) shares.push(limits.costUsdMonthly === 0 ? 1 : usage.credit.costUsd / limits.costUsdMonthly)
  return shares.length === 0 ? 0 : Math.max(...shares)
}

const limitsOf = (budget: AiBudget | undefined): BudgetLimits =>
  ({ tokensMonthly: budget?.tokensMonthly ?? null, costUsdMonthly: budget?.costUsdMonthly ?? null })

export async function budgetStatus(
  db: Db,
  kind: BudgetSubject,
  subject: string,
  period: MonthPeriod,
  budget?: AiBudget,
): Promise<BudgetStatus> {
  const limits = limitsOf(budget)
  const usage = await subjectUsage(db, kind, subject, period, limits)
  const ratio = budgetRatio(usage, limits)
  return { kind, subject, month: period.month, limits, usage, ratio: Number(ratio.toFixed(4)), reached: ratio >= 1 }
}

export async function listBudgets(db: Db): Promise<AiBudget[]> {
  return await db.select().from(aiBudgets).orderBy(aiBudgets.subjectKind, aiBudgets.subject)
}

export async function budgetsOf(db: Db, subjects: Array<{ kind: BudgetSubject, subject: string }>): Promise<AiBudget[]> {
  if (subjects.length === 0) return []
  return await db.select().from(aiBudgets).where(sql`(${aiBudgets.subjectKind}, ${aiBudgets.subject}) in (${sql.join(subjects.map(s => sql`(${s.kind}, ${s.subject})`), sql`, `)})`)
}

/** A budget names a hub person (hub_users) or a registry agent (agents): anything else is refused. */
export async function budgetSubjectExists(db: Db, kind: BudgetSubject, subject: string): Promise<boolean> {
  const rows = kind === 'person'
    ? await db.execute(sql`select 1 from hub_users where email = ${subject}`)
    : await db.execute(sql`select 1 from agents where codename = ${subject}`)
  return rows.length > 0
}

export interface BudgetEdit { kind: BudgetSubject, subject: string, tokensMonthly: number | null, costUsdMonthly: number | null }

/** Sets (or, both limits empty, removes) a budget; audited with before and after. */
export async function setBudget(db: Db, edit: BudgetEdit, actor: string): Promise<AiBudget | null> {
  return await db.transaction(async (tx) => {
    const where = and(eq(aiBudgets.subjectKind, edit.kind), eq(aiBudgets.subject, edit.subject))
    const [before] = await tx.select().from(aiBudgets).where(where).for('update')
    let after: AiBudget | null = null
    if (edit.tokensMonthly === null && edit.costUsdMonthly === null) await tx.delete(aiBudgets).where(where)
    else {
      const values = { tokensMonthly: edit.tokensMonthly, costUsdMonthly: edit.costUsdMonthly, updatedAt: new Date(), updatedBy: actor }
      ;[after] = await tx.insert(aiBudgets).values({ subjectKind: edit.kind, subject: edit.subject, ...values })
        .onConflictDoUpdate({ target: [aiBudgets.subjectKind, aiBudgets.subject], set: values }).returning() as [AiBudget]
    }
    const shape = (row: AiBudget | null | undefined) =>
      row ? { tokensMonthly: row.tokensMonthly, costUsdMonthly: row.costUsdMonthly } : null
    await recordAudit(tx, { actor, action: 'ai_budget_updated', target: `${edit.kind}:${edit.subject}`, details: { before: shape(before), after: shape(after) } })
    return after
  })
}

/** Whether calls to this model are in the allowance: the offline provider, or the price row the ledger would pick is marked included. */
export async function isIncludedModel(db: Db, provider: string, model: string | null): Promise<boolean> {
  if (provider === 'offline') return true
  if (provider === 'auto') return false
  const rows = await db.execute<{ included: boolean }>(sql`
    select pr.included from ai_prices pr
    where pr.provider = ${provider} and (pr.model = '*' or (${model}::text is not null and (pr.model = ${model} or starts_with(${model}, pr.model))))
    order by (pr.model = ${model}) desc nulls last, (pr.model = '*') asc, length(pr.model) desc
    limit 1`)
  return rows[0]?.included === true
}

export function budgetLabel(kind: BudgetSubject, subject: string): string {
  return kind === 'person' ? subject : `agent ${subject}`
}

export function usedText(status: BudgetStatus): string {
  const parts: string[] = []
  if (status.limits.tokensMonthly !== null) parts.push(`${status.usage.credit.tokens} of ${status.limits.tokensMonthly} tokens`)
  if (status.limits.costUsdMonthly !== null) parts.push(`$${status.usage.credit.costUsd.toFixed(2)} of $${status.limits.costUsdMonthly.toFixed(2)}`)
  return parts.join(', ')
}

/**
 * Writes a notification (an open ops alert, listed by the hub's notifications) for every
 * threshold the status has crossed and that was not yet written this month: the alert's
 * unique (kind, subject, holder) key makes it once per threshold per month, even when two
 * runs race. Returns the thresholds written now.
 */
export async function notifyThresholds(db: Db, status: BudgetStatus): Promise<number[]> {
  const crossed = BUDGET_THRESHOLDS.filter(threshold => status.ratio * 100 >= threshold)
  if (crossed.length === 0) return []
  const label = budgetLabel(status.kind, status.subject)
  const rows = await db.insert(opsAlerts).values(crossed.map(threshold => ({
    kind: BUDGET_ALERT_KIND,
    subject: `${status.kind}:${status.subject}:${status.month}:${threshold}`,
    message: threshold >= 100
      ? `The monthly budget of ${label} is reached (${usedText(status)}): premium runs are refused until a founder raises it on /hub/usage.`
      : `${label} used ${threshold}% of its monthly budget (${usedText(status)}).`,
    details: { budgetKind: status.kind, budgetSubject: status.subject, month: status.month, threshold, ratio: status.ratio },
  }))).onConflictDoNothing().returning({ details: opsAlerts.details })
  return rows.map(row => Number(row.details.threshold))
}
