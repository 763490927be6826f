import { z } from 'zod'
import { saveDraft, SaveDraftBody } from '#layers/agents/core/custom/drafts'
import { customAgentPage } from '#layers/agents/core/custom/api'

const Params = z.object({ id: z.string().uuid() })

// The reviewed draft becomes a real agent (version 1) with only the tools the person confirmed.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, Params)
  const body = await agentBody(event, SaveDraftBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const db = await useDb()
    await saveDraft(db, user, id, body)
    return await customAgentPage(db, user, body.codename)
  })
})
