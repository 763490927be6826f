import { ApprovalParams, DecisionBody, runView } from '#layers/agents/core/engine/api'
import { decideApproval } from '#layers/agents/core/engine/actions'

// Operator: approve or deny a paused EXTERNAL_WRITE (the person asked, or a founder); past 72 hours it is a 409 approval_expired.
export default defineEventHandler(async (event) => {
  const { id, approval } = agentParams(event, ApprovalParams)
  const body = await agentBody(event, DecisionBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    const run = await decideApproval(engine, approval, body.decision, user, body.note)
    if (run.id !== id) throw createError({ statusCode: 404, statusMessage: 'This approval belongs to another run.', data: { code: 'not_found' } })
    return await runView(engine.db, id, user)
  })
})
