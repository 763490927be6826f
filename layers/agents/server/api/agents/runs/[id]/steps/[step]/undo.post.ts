import { runView, StepParams } from '#layers/agents/core/engine/api'
import { undoWrite } from '#layers/agents/core/engine/actions'

// Operator: applies a write's snapshot back (once); a write that is not undoable is a 409.
export default defineEventHandler(async (event) => {
  const { id, step } = agentParams(event, StepParams)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    await undoWrite(engine, id, step, user)
    return await runView(engine.db, id, user)
  })
})
