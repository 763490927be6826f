import { CodenameParams } from '#layers/agents/core/custom/api'
import { shareAgent, ShareBody } from '#layers/agents/core/custom/sharing'

// Shares the agent with a person at a level (use, edit, full), or changes the level: `full` needed.
export default defineEventHandler(async (event) => {
  const { codename } = agentParams(event, CodenameParams)
  const body = await agentBody(event, ShareBody)
  const user = currentUser(event)
  return await agentCall(async () => ({ shares: await shareAgent(await useDb(), user, codename, body) }))
})
