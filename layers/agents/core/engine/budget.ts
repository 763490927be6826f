// The monthly budgets checked before a run starts (issue 34, Deliver 7; seed 003 §16.5): the
// person's (every agent they run) and the custom agent's. A reached budget refuses a new run
// with a reason naming whose budget, how much and where to raise it — unless the run's model
// is included (the offline provider or a price marked included), which keeps running. The
// 50/80/100 % notifications are written on the way, once each per month.
import type { Db } from '#db/connection'
import { budgetLabel, budgetsOf, budgetStatus, isIncludedModel, monthPeriod, notifyThresholds, usedText, type BudgetStatus } from '#layers/ai/core/budgets'

export class BudgetExceededError extends Error {
  readonly code = 'budget_exceeded'
  constructor(readonly status: BudgetStatus) {
    super(`the monthly budget of ${budgetLabel(status.kind, status.subject)} is reached: ${usedText(status)}; a founder can raise it on /hub/usage`)
    this.name = 'BudgetExceededError'
  }
}

export interface BudgetCheck {
  email: string
  agent: string
  /** The run's first model (null: Auto, decided by the facade: never counted as included). */
  model: { provider: string, model?: string | null } | null
}

/** Throws BudgetExceededError when a budget of the person or the agent is reached and the model is not included. */
export async function assertWithinBudgets(
  db: Db,
  check: BudgetCheck,
  now: Date,
  flushLedger?: () => Promise<void>,
): Promise<BudgetStatus[]> {
  const budgets = await budgetsOf(db, [
    { kind: 'person', subject: check.email },
    { kind: 'agent', subject: check.agent },
  ])
  if (budgets.length === 0) return []
  // The last calls' rows may still be queued: the count must include them.
  await flushLedger?.()
  const period = monthPeriod(undefined, now)
  const statuses = await Promise.all(budgets.map(budget => budgetStatus(db, budget.subjectKind, budget.subject, period, budget)))
  for (const status of statuses) await notifyThresholds(db, status)
  const reached = statuses.find(status => status.reached)
  if (reached && !(check.model && (await isIncludedModel(db, check.model.provider, check.model.model ?? null))))
    throw new BudgetExceededError(reached)
  return statuses
}
