import { ChatBody, openChatTurn } from '#layers/agents/core/engine/chat'
import { driveRun } from '#layers/agents/core/engine/loop'
import { updateRun } from '#layers/agents/core/engine/store'
import { fileLimits } from '#layers/agents/core/files/limits'

// A turn of the chat panel: writes the run of the signed-in person's own agent and answers at
// once with its id; the engine drives the run in the background and the panel follows it on
// GET /api/agents/runs/:id/stream (server-sent events). The uploads it names (fileIds) must be
// the person's and given to no run yet; they are given to this one before it is driven.
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, ChatBody)
  const user = currentUser(event)
  return await agentCall(async () => {
    const engine = await useAgentEngine()
    const { run, conversationId } = await openChatTurn(engine, user, body, fileLimits(process.env))
    void driveRun(engine, run.id).catch(async (error: Error) => {
      // The loop records model errors itself; anything else still ends the run visibly.
      console.warn(`[agent-chat] run ${run.id} failed: ${error.message}`)
      await updateRun(engine.db, run.id, { status: 'failed', error: error.message.slice(0, 2000), endedAt: new Date() })
        .catch((inner: Error) => console.warn(`[agent-chat] run ${run.id}: recording the failure failed too: ${inner.message}`))
    })
    return { runId: run.id, conversationId }
  })
})
