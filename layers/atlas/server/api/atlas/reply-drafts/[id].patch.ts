import { z } from 'zod'
import { ReplyDraftError, updateReplyDraft } from '#layers/spawn/core/reply-draft'

const Params = z.object({ id: z.coerce.number().int().positive() })
const Body = z.object({ body: z.string().trim().min(1, 'body: the reply cannot be empty').max(20_000) })

// Operator+: a human edits the draft (only while it is a draft); audited.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const { body } = await readValidatedBody(event, Body.parse)
  try {
    return await updateReplyDraft(await useDb(), { id, body, actor: currentUser(event).email })
  }
  catch (error) {
    if (error instanceof ReplyDraftError)
      throw createError({ statusCode: error.statusCode, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
})
