import { CodenameParams } from '#layers/agents/core/api'
import { agentDetail } from '#layers/agents/core/registry'

// Any signed-in role: one agent's page — identity, scope, the three tiers with their token
// counts (French and English), activity, relationships, experience, skills and tools.
export default defineEventHandler(async (event) => {
  const { codename } = await getValidatedRouterParams(event, CodenameParams.parse)
  try {
    return await agentDetail(await useDb(), codename)
  }
  catch (error) {
    throwAgentsHttpError(error)
  }
})
