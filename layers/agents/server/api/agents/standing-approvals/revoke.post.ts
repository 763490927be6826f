import { personalAgentOf, StandingBody } from '#layers/agents/core/engine/api'
import { revokeStandingApproval } from '#layers/agents/core/engine/standing'

// Operator: revokes a standing approval of their own agent (a founder: any agent). Audited; the row stays.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, StandingBody)
  const user = currentUser(event)
  const agent = user.role === 'founder' && body.agent ? body.agent : personalAgentOf(user.email)
  return await agentCall(async () => revokeStandingApproval(await useDb(), agent, body.tool, user.email))
})
