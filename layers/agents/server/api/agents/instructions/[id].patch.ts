import { z } from 'zod'
import { updateDocument, UpdateInstructionBody } from '#layers/agents/core/instructions/documents'

// Make the document active (the others stop being), archive or rename it; owner only (404 otherwise).
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, z.object({ id: z.string().uuid() }))
  const body = await agentBody(event, UpdateInstructionBody)
  const user = currentUser(event)
  return await agentCall(async () => await updateDocument(await useDb(), user.email, id, body))
})
