import { personalAgentOf } from '#layers/agents/core/engine/api'
import { listStandingApprovals } from '#layers/agents/core/engine/standing'

// The standing approvals of the signed-in person's agent (granted and revoked ones: the trail).
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  return { agent: personalAgentOf(user.email), items: await listStandingApprovals(await useDb(), personalAgentOf(user.email)) }
})
