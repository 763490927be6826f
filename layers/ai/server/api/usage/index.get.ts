import { monthPeriod } from '#layers/ai/core/budgets'
import { UsageQuery } from '#layers/ai/core/schemas'
import { usageReport } from '#layers/ai/core/usage'

// The usage page: a month's ledger by person, agent, client and model, and every budget's status (viewer+).
export default defineEventHandler(async (event) => {
  const { month } = validInput(UsageQuery, getQuery(event))
  return await usageReport(await useDb(), monthPeriod(month))
})
