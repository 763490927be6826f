import { z } from 'zod'
import { recentRuns } from '../../../../core/cron-runs'

const Params = z.object({ name: z.string().min(1).max(100) })
const Query = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) })

export default defineEventHandler(async (event) => {
  const { name } = await getValidatedRouterParams(event, Params.parse)
  const { limit } = await getValidatedQuery(event, Query.parse)
  return await recentRuns(await useDb(), name, limit)
})
