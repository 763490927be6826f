import { CodenameParams } from '#layers/agents/core/custom/api'
import { revokeShare, RevokeBody } from '#layers/agents/core/custom/sharing'

// Revokes a person's share: from their next request on, the agent does not exist for them.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, RevokeBody)
  const user = currentUser(event)
  return await agentCall(async () => ({ shares: await revokeShare(await useDb(), user, codename, body.email) }))
})
