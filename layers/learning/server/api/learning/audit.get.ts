import { z } from 'zod'
import { listAudit } from '#layers/learning/core/suggestions'

const Query = z.object({ subjectKind: z.string().trim().max(40).optional(), subjectId: z.string().trim().max(80).optional() })

// Any signed-in role: the learning audit log (every human decision), latest first.
export default defineEventHandler(async (event) => {
  const query = await learningQuery(event, Query)
  return { audit: await listAudit(await useDb(), query) }
})
