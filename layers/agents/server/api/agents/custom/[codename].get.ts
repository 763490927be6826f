import { CodenameParams, customAgentPage } from '#layers/agents/core/custom/api'

// The agent's page: configuration, triggers with the next scheduled runs, versions, runs, fires.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const user = currentUser(event)
  return await agentCall(async () => await customAgentPage(await useDb(), user, codename))
})
