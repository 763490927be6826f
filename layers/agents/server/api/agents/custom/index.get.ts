import { listCustomAgents, TEMPLATES } from '#layers/agents/core/custom/agents'

// The person's custom agents (a founder sees every one) and the templates a new one starts from.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  return { agents: await listCustomAgents(await useDb(), user), templates: Object.keys(TEMPLATES) }
})
