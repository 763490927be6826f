import { z } from 'zod'
import { saveVersion, SaveInstructionBody } from '#layers/agents/core/instructions/documents'

// A save: a new version row (none lost); 409 version_conflict when `baseVersion` is not the latest.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, z.object({ id: z.string().uuid() }))
  const body = await agentBody(event, SaveInstructionBody)
  const user = currentUser(event)
  return await agentCall(async () => await saveVersion(await useDb(), user.email, id, body))
})
