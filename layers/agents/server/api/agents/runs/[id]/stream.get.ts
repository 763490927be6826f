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
  let seq = 0
  let status = ''
  const started = Date.now()
  return sendPollingStream(event, TICK_MS, `agents run ${id}`, async (stream) => {
    const progress = await runProgress(db, id, seq)
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
      await stream.stop()
    }
    else if (Date.now() - started > MAX_MS) {
      await stream.push({ event: 'timeout', data: id })
      await stream.stop()
    }
  })
})
