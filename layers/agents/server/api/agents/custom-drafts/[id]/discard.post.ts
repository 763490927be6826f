import { z } from 'zod'
import { discardDraft } from '#layers/agents/core/custom/drafts'

const Params = z.object({ id: z.string().uuid() })

// The person drops a draft: it never becomes an agent.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, Params)
  const user = currentUser(event)
  return await agentCall(async () => {
    await discardDraft(await useDb(), user.email, id)
    return { id, status: 'discarded' }
  })
})
