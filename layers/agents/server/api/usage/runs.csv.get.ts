import { monthPeriod } from '#layers/ai/core/budgets'
import { UsageQuery } from '#layers/ai/core/schemas'
import { runsCsvStream } from '#layers/agents/core/engine/runs-csv'

// The month's agent runs as a streamed CSV download (viewer+).
export default defineEventHandler(async (event) => {
  const { month } = validInput(UsageQuery, getQuery(event))
  const period = monthPeriod(month)
  return sendCsv(event, `agent-runs-${period.month}.csv`, runsCsvStream(await useDb(), period))
})
