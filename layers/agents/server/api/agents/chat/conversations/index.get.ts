import { listConversations } from '#layers/agents/core/engine/chat'

// The signed-in person's own chat conversations, most recent first.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  return { conversations: await listConversations(await useDb(), user) }
})
