import { customToolRegistry } from '#layers/agents/core/custom/delegation'
import { saveStudioPolicy, StudioPolicyBody } from '#layers/agents/core/custom/studio-policy'

// Founders: sets the tools autonomous agents may ever use (null: every tool).
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, StudioPolicyBody)
  const user = currentUser(event)
  return await agentCall(async () => await saveStudioPolicy(await useDb(), customToolRegistry(), user, body))
})
