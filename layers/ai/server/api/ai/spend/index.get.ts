import { lastDays, spendReport } from '../../../../core/spend'
import { SpendQuery } from '../../../../core/api-schemas'

export default defineEventHandler(async (event) => {
  const { days } = await getValidatedQuery(event, SpendQuery.parse)
  return await spendReport(await useDb(), lastDays(days))
})
