import { lastDays, ledgerCsv } from '#layers/ai/core/spend'
import { SpendQuery } from '#layers/ai/core/api-schemas'

// The ledger rows of the last N days as CSV (a file download).
export default defineEventHandler(async (event) => {
  const { days } = await getValidatedQuery(event, SpendQuery.parse)
  const period = lastDays(days)
  const csv = await ledgerCsv(await useDb(), period)
  setResponseHeader(event, 'content-type', 'text/csv; charset=utf-8')
  setResponseHeader(event, 'content-disposition', `attachment; filename="ai-consumption-${period.from.toISOString().slice(0, 10)}-to-${new Date(period.to.getTime() - 1).toISOString().slice(0, 10)}.csv"`)
  return csv
})
