import { duplicateCustomAgent } from '#layers/agents/core/custom/agents'
import { CodenameParams, customAgentPage, DuplicateBody } from '#layers/agents/core/custom/api'

// A copy with the same instructions and triggers; its access and approvals start empty.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, DuplicateBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const db = await useDb()
    await duplicateCustomAgent(db, user, codename, body.codename, body.nickname)
    return await customAgentPage(db, user, body.codename)
  })
})
