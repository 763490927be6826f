import { RunIdParams, runView } from '#layers/agents/core/engine/api'
import { rerun } from '#layers/agents/core/engine/actions'

// A new run with the same context, linked to this one (rerun_of); the person it acted for, or a founder.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, RunIdParams)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    const run = await rerun(engine, id, user)
    return await runView(engine.db, run.id, user)
  })
})
