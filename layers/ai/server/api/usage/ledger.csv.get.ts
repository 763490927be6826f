import { monthPeriod } from '#layers/ai/core/budgets'
import { UsageQuery } from '#layers/ai/core/schemas'
import { ledgerCsvStream } from '#layers/ai/core/usage'

// The month's ledger rows as a streamed CSV download (viewer+).
export default defineEventHandler(async (event) => {
  const { month } = validInput(UsageQuery, getQuery(event))
  const period = monthPeriod(month)
  return sendCsv(event, `ai-ledger-${period.month}.csv`, ledgerCsvStream(await useDb(), period))
})
