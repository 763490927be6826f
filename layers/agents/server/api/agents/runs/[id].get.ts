import { expireStaleApprovals } from '#layers/agents/core/engine/actions'
import { RunIdParams, runView } from '#layers/agents/core/engine/api'

// One run with its steps, approvals, sources, model, tokens and cost (the person it acted for, or a founder).
export default defineEventHandler(async (event) => {
  // Approvals past their 72 hours are expired before anything is shown.
  await expireStaleApprovals(await useDb(), new Date())
  const { id } = agentParams(event, RunIdParams)
  const user = currentUser(event)
  return await agentCall(async () => runView(await useDb(), id, user))
})
