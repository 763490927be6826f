import { RunIdParams } from '#layers/agents/core/engine/api'
import { conversationTurns } from '#layers/agents/core/engine/chat'

// One of the signed-in person's conversations, its turns oldest first (404 for anyone else's).
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, RunIdParams)
  const user = currentUser(event)
  return await agentCall(async () => ({ id, turns: await conversationTurns(await useDb(), user, id) }))
})
