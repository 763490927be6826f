import { seesActivityOf } from '#layers/agents/core/custom/sharing'
import { RunIdParams, runView } from '#layers/agents/core/engine/api'
import { runProgress } from '#layers/agents/core/engine/chat'

const TICK_MS = 250
/** A stream never outlives this: the panel falls back to the run page. */
const MAX_MS = 10 * 60_000

// Server-sent events of one run as the engine writes it (the chat panel): a `step` event per
// new step row, a `status` event when the status changes, and `done` with the run's view (answer,
// sources, skills) once it no longer runs (ended, or waiting for an approval). Reads the run's
// rows every 250 ms (one indexed query each); whoever may open the run's page may follow it.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, RunIdParams)
  const user = currentUser(event)
  const db = await useDb()
  // Access first: a 404 before the stream opens for anyone else's run.
  const shared = (agent: string) => seesActivityOf(db, user, agent)
  await agentCall(() => runView(db, id, user, shared))
  const stream = createEventStream(event)
  let seq = 0
  let status = ''
  let busy = false
  let closed = false
  let warned = false
  const started = Date.now()
  const stop = async () => {
    if (closed) return
    closed = true
    clearInterval(timer)
    await stream.close()
  }
  const tick = async () => {
    if (busy || closed) return
    busy = true
    try {
      const progress = await runProgress(db, id, seq)
      warned = false
      for (const step of progress.steps) {
        seq = step.seq
        await stream.push({ event: 'step', data: JSON.stringify(step) })
      }
      if (progress.status !== status) {
        status = progress.status
        await stream.push({ event: 'status', data: status })
      }
      if (status !== 'running') {
        await stream.push({ event: 'done', data: JSON.stringify(await runView(db, id, user, shared)) })
        await stop()
      }
      else if (Date.now() - started > MAX_MS) {
        await stream.push({ event: 'timeout', data: id })
        await stop()
      }
    }
    catch (error) {
      // The database hiccuped: the next tick tries again (said once per outage).
      if (!warned) console.warn(`[agent-chat] stream of run ${id}: reading failed, retrying: ${(error as Error).message}`)
      warned = true
    }
    finally {
      busy = false
    }
  }
  const timer = setInterval(() => void tick(), TICK_MS)
  stream.onClosed(async () => {
    await stop()
  })
  void tick()
  return stream.send()
})
