import { z } from 'zod'
import { listReplyDrafts } from '#layers/spawn/core/reply-draft'

const Query = z.object({ messageId: z.coerce.number().int().positive() })

export default defineEventHandler(async (event) => {
  const { messageId } = await getValidatedQuery(event, Query.parse)
  return await listReplyDrafts(await useDb(), messageId)
})
