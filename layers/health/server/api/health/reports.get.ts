import { z } from 'zod'
import { healthHistory } from '#layers/health/core/report/read'

const Query = z.object({ days: z.coerce.number().int().min(1).max(365).default(30) })

// Any signed-in role: the latest health snapshot (five dimensions, care note) and the last
// `days` of them, oldest first, for the history charts.
export default defineEventHandler(async (event) => {
  const { days } = await getValidatedQuery(event, Query.parse)
  return await healthHistory(await useDb(), new Date(), days)
})
