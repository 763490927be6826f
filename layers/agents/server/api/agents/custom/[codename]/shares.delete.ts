import { CodenameParams } from '../../../../../core/custom/api'
import { revokeShare, RevokeBody } from '../../../../../core/custom/sharing'

// Revokes a person's share: from their next request on, the agent does not exist for them.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, RevokeBody)
  const user = currentUser(event)
  return await agentCall(async () => ({ shares: await revokeShare(await useDb(), user, codename, body.email) }))
})
