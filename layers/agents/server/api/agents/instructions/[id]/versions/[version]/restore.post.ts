import { z } from 'zod'
import { restoreVersion } from '#layers/agents/core/instructions/documents'

// Restores an old version as a new one (history is never rewritten).
export default defineEventHandler(async (event) => {
  const { id, version } = agentParams(event, z.object({ id: z.string().uuid(), version: z.coerce.number().int().min(1) }))
  const user = currentUser(event)
  return await agentCall(async () => await restoreVersion(await useDb(), user.email, id, version))
})
