import { lastDays, spendReport } from '#layers/ai/core/spend'
import { SpendQuery } from '#layers/ai/core/api-schemas'

export default defineEventHandler(async (event) => {
  const { days } = await getValidatedQuery(event, SpendQuery.parse)
  return await spendReport(await useDb(), lastDays(days))
})
