import { expireStaleApprovals } from '#layers/agents/core/engine/actions'
import { seesActivityOf } from '#layers/agents/core/custom/sharing'
import { RunIdParams, runView } from '#layers/agents/core/engine/api'

// One run with its steps, approvals, sources, model, tokens and cost: for the person it acted
// for, its owner, a founder, or someone a custom agent's activity is shared with.
export default defineEventHandler(async (event) => {
  // Approvals past their 72 hours are expired before anything is shown.
  const db = await useDb()
  await expireStaleApprovals(db, new Date())
  const { id } = agentParams(event, RunIdParams)
  const user = currentUser(event)
  return await agentCall(async () => runView(db, id, user, agent => seesActivityOf(db, user, agent)))
})
