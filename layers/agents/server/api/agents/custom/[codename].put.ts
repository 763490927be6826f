import { ConfigBody, saveCustomAgent } from '#layers/agents/core/custom/agents'
import { CodenameParams, customAgentPage } from '#layers/agents/core/custom/api'

// Saves the whole configuration as the next version (the owner or a founder).
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, ConfigBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const db = await useDb()
    await saveCustomAgent(db, user, codename, body)
    return await customAgentPage(db, user, codename)
  })
})
