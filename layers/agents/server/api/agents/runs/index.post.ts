import { personalRunContext, runView, StartRunBody } from '#layers/agents/core/engine/api'
import { startRun } from '#layers/agents/core/engine/loop'
import { modelChoice } from '#layers/agents/core/engine/models'
import { activeInstructions, instructionSource } from '#layers/agents/core/instructions/documents'

// Any signed-in person: a run of their personal agent, with their own permissions (regime
// `user`: a viewer's agent only reads), their active instructions and model choice; a `model`
// the surface does not allow is a 400 (model_not_allowed). Answers the run as its page shows it.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, StartRunBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    const [active, preference] = await Promise.all([activeInstructions(engine.db, user.email), modelChoice(engine.db, user.email, 'hub_chat')])
    const own = { instructions: active ? [{ source: instructionSource(active), text: active.body }] : [], modelPreference: preference }
    const run = await startRun(engine, personalRunContext(user, body, own))
    return await runView(engine.db, run.id, user)
  })
})
