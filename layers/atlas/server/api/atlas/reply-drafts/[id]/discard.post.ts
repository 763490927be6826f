import { z } from 'zod'
import { discardReplyDraft, ReplyDraftError } from '#layers/spawn/core/reply-draft'

const Params = z.object({ id: z.coerce.number().int().positive() })

export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  try {
    return await discardReplyDraft(await useDb(), { id, actor: currentUser(event).email })
  }
  catch (error) {
    if (error instanceof ReplyDraftError)
      throw createError({ statusCode: error.statusCode, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
})
