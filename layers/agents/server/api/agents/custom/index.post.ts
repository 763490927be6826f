import { createCustomAgent, CreateCustomBody } from '#layers/agents/core/custom/agents'
import { customAgentPage } from '#layers/agents/core/custom/api'

// Operators and founders: a new custom agent (blank or from a template), its version 1.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, CreateCustomBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const db = await useDb()
    await createCustomAgent(db, user, body)
    return await customAgentPage(db, user, body.codename)
  })
})
