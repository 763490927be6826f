import { z } from 'zod'
import { readSpawnConfig } from '../../../../core/spawn/config'
import { draftReply, ReplyDraftError } from '../../../../core/spawn/reply-draft'

const Body = z.object({ messageId: z.number().int().positive() })

// Operator+: drafts the client reply for a finished run through the AI facade
// (mistral-small-latest). A human edits, copies and sends it; the AI never sends anything.
export default defineEventHandler(async (event) => {
  const { messageId } = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  try {
    return await draftReply({ db: await useDb(), ai: useAiFacade(), signature: readSpawnConfig(process.env).teamSignature }, { messageId, actor: user.email })
  }
  catch (error) {
    if (error instanceof ReplyDraftError) throw createError({ statusCode: error.statusCode, statusMessage: error.message, data: { code: error.code } })
    throwAiHttpError(error)
  }
})
