// Wrong passwords and refused sign-in tries over a window (founder only: it names accounts
// and addresses; shared/access.ts).
import { z } from 'zod'
import { readSignInReport } from '#layers/health/core/sign-ins'

const Query = z.object({
  hours: z.coerce.number().int().min(1).max(24 * 30).default(24),
  limit: z.coerce.number().int().min(1).max(500).default(50),
})

export default defineEventHandler(async (event) => {
  const { hours, limit } = await getValidatedQuery(event, Query.parse)
  return await readSignInReport(await useDb(), { windowHours: hours, limit })
})
