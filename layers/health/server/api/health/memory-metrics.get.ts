import { z } from 'zod'
import { memoryMetricsSeries } from '#layers/health/core/report/read'

const Query = z.object({ days: z.coerce.number().int().min(1).max(90).default(90) })

// Any signed-in role: the memory's daily measures (memory-metrics), oldest first.
export default defineEventHandler(async (event) => {
  const { days } = await getValidatedQuery(event, Query.parse)
  return await memoryMetricsSeries(await useDb(), new Date(), days)
})
