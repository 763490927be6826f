// Monthly budgets (issue 34, Deliver 7; seed 003 §10.6 and §16.5): per person (hub_users
// email) and per custom agent (codename), a token limit and a cost limit, either one empty
// for "no limit of its own". Usage is never stored here: it is computed from the ledger
// (ai_consumption) for the calendar month, the seed's "no denormalised counter".
import { sql } from 'drizzle-orm'
import { bigint, check, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

export const BUDGET_SUBJECTS = ['person', 'agent'] as const
export type BudgetSubject = typeof BUDGET_SUBJECTS[number]

export const aiBudgets = pgTable('ai_budgets', {
  subjectKind: text('subject_kind').$type<BudgetSubject>().notNull(),
  /** The person's email or the custom agent's codename. */
  subject: text('subject').notNull(),
  tokensMonthly: bigint('tokens_monthly', { mode: 'number' }),
  costUsdMonthly: numeric('cost_usd_monthly', { precision: 12, scale: 2, mode: 'number' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: text('updated_by').notNull(),
}, table => [
  primaryKey({ columns: [table.subjectKind, table.subject] }),
  check('ai_budgets_kind_check', sql`${table.subjectKind} in ('person', 'agent')`),
  check('ai_budgets_limits_check', sql`coalesce(${table.tokensMonthly}, 0) >= 0 and coalesce(${table.costUsdMonthly}, 0) >= 0`),
])

export type AiBudget = typeof aiBudgets.$inferSelect
