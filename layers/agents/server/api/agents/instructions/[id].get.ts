import { z } from 'zod'
import { documentView } from '#layers/agents/core/instructions/documents'

// One of the person's documents with every version and the agent's proposals; 404 to anyone else.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, z.object({ id: z.string().uuid() }))
  const user = currentUser(event)
  return await agentCall(async () => await documentView(await useDb(), user.email, id))
})
