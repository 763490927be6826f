import { personalRunContext, runView, StartRunBody } from '../../../../core/engine/api'
import { startRun } from '../../../../core/engine/loop'

// Any signed-in person: a run of their personal agent, with their own permissions (regime
// `user`: a viewer's agent only reads). Answers the run as its page shows it.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, StartRunBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    const run = await startRun(engine, personalRunContext(user, body))
    return await runView(engine.db, run.id, user)
  })
})
