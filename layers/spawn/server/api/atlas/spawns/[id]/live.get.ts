import { z } from 'zod'
import { getSpawn, spawnEvents, type SpawnSummary } from '#layers/spawn/core/queries'

const Params = z.object({ id: z.uuid() })
const Query = z.object({ after: z.coerce.number().int().min(0).optional() })

const LIVE = new Set(['queued', 'running'])
const POLL_MS = 1000

// What the page reacts to; how long it has been silent changes every second, so it is sent
// with a change but does not make one (else every viewer would re-fetch every second).
function state(spawn: SpawnSummary) {
  const { id, status, outcome, reason, lastEventAt, lastEventType, possiblyHung, eventCount, agentPid, endedAt } = spawn
  return { id, status, outcome, reason, lastEventAt, lastEventType, possiblyHung, eventCount, agentPid, endedAt }
}

// Server-sent events of a spawn: `spawn-event` for each stored event as it arrives (id = its
// sequence, so a reconnect resumes with Last-Event-ID), `spawn` when its state changes
// (including how long it has been silent), `end` once it is over and everything was sent.
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const query = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  const first = await getSpawn(db, id)
  if (!first) throw createError({ statusCode: 404, statusMessage: `No spawn ${id}.`, data: { code: 'not_found' } })
  const resumeFrom = Number(getRequestHeader(event, 'last-event-id'))
  let after = Number.isInteger(resumeFrom) && resumeFrom > 0 ? resumeFrom : (query.after ?? 0)
  let lastState = ''
  return sendPollingStream(event, POLL_MS, `atlas spawn ${id}`, async (stream) => {
    let sent = 0
    for (;;) {
      const events = await spawnEvents(db, id, { after, limit: 500 })
      for (const row of events) {
        await stream.push({ id: String(row.seq), event: 'spawn-event', data: JSON.stringify(row) })
        after = row.seq
      }
      sent += events.length
      if (events.length < 500) break
    }
    const spawn = await getSpawn(db, id)
    if (!spawn) return
    const current = JSON.stringify(state(spawn))
    if (current !== lastState) {
      lastState = current
      await stream.push({ event: 'spawn', data: JSON.stringify({ ...state(spawn), silentForMs: spawn.silentForMs }) })
    }
    if (!LIVE.has(spawn.status) && sent === 0 && after >= spawn.eventCount) {
      await stream.push({ event: 'end', data: JSON.stringify({ status: spawn.status, outcome: spawn.outcome }) })
      await stream.stop()
    }
  })
})
