import { z } from 'zod'
import { readTeamSignature } from '#layers/spawn/core/config'
import { draftReply, ReplyDraftError, writeReplyDraft } from '#layers/spawn/core/reply-draft'

const Body = z.object({
  messageId: z.number().int().positive(),
  /** A person's own text; without it the AI drafts one. */
  body: z.string().trim().min(1, 'body: the reply cannot be empty').max(20_000).optional(),
})

// Operator+: a new draft of the client reply, written by the person (body) or drafted from
// the run that did the work through the AI facade (the client's model, else mistral-small-latest). The draft before is
// kept in the history. A human copies and sends it; the AI never sends anything.
export default defineEventHandler(async (event) => {
  const { messageId, body } = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  const db = await useDb()
  try {
    if (body !== undefined) return { draft: await writeReplyDraft(db, { messageId, body, actor: user.email }) }
    return await draftReply({ db, ai: useAiFacade(), signature: readTeamSignature(process.env) }, { messageId, actor: user.email })
  }
  catch (error) {
    if (error instanceof ReplyDraftError)
      throw createError({ statusCode: error.statusCode, statusMessage: error.message, data: { code: error.code } })
    throwAiHttpError(error)
  }
})
