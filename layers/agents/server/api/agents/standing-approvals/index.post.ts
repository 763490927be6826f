import { personalAgentOf, StandingBody } from '#layers/agents/core/engine/api'
import { grantStandingApproval } from '#layers/agents/core/engine/standing'

// Operator: lets their own agent (a founder: any agent) use one EXTERNAL_WRITE tool without asking. Audited.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, StandingBody)
  const user = currentUser(event)
  const agent = user.role === 'founder' && body.agent ? body.agent : personalAgentOf(user.email)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    return await grantStandingApproval(engine.db, engine.registry, agent, body.tool, user.email)
  })
})
