import { z } from 'zod'
import { recentNights } from '#layers/health/core/report/read'

const Query = z.object({ limit: z.coerce.number().int().min(1).max(90).default(14) })

// Any signed-in role: the morning reports of the last nights of the maintenance loop, each
// step with its exit code, newest first.
export default defineEventHandler(async (event) => {
  const { limit } = await getValidatedQuery(event, Query.parse)
  return await recentNights(await useDb(), limit)
})
