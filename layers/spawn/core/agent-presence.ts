// The routed agent's presence while a spawn runs: a `working` heartbeat at the start and every
// SPAWN_HEARTBEAT_MS (the reactor reads a beat older than 10 minutes as silent), an
// agents_events row when the spawn starts and when it ends, and an `idle` beat after it.
// Book-keeping: a failed write is logged, never allowed to stop the spawn.
import type { Db } from '#db/client'
import { agentsEvents } from '#db/schema/agents'
import { recordHeartbeat } from '#layers/agents/core/heartbeats'

export interface Presence {
  /** The spawn ended: one event row and the `idle` beat. */
  end: (outcome: string) => Promise<void>
}

export function startPresence(
  deps: { db: Db, log: (line: string) => void, heartbeatMs: number },
  agent: string | null,
  spawn: { id: string, messageId: number, iteration: number },
): Presence {
  if (!agent) return { end: async () => {} }
  const detail = `message #${spawn.messageId}, spawn ${spawn.iteration}`
  const ref = `atlas#${spawn.messageId}/spawn/${spawn.id}`
  const logged = (what: string) => (error: unknown) =>
    deps.log(`[atlas-spawn-worker] ${ref}: ${what} of agent ${agent} not written (${(error as Error).message})`)
  const beat = () => recordHeartbeat(deps.db, agent, 'working', detail).catch(logged('the heartbeat'))
  const started = Promise.all([
    beat(),
    deps.db
      .insert(agentsEvents)
      .values({
        agent,
        eventType: 'spawn_started',
        payload: { ref, messageId: spawn.messageId, spawnId: spawn.id, iteration: spawn.iteration },
      })
      .catch(logged('the spawn_started event')),
  ])
  const timer = setInterval(() => void beat(), deps.heartbeatMs)
  timer.unref()
  return {
    end: async (outcome) => {
      clearInterval(timer)
      await started
      await deps.db
        .insert(agentsEvents)
        .values({
          agent,
          eventType: 'spawn_ended',
          payload: { ref, messageId: spawn.messageId, spawnId: spawn.id, iteration: spawn.iteration, outcome },
        })
        .catch(logged('the spawn_ended event'))
      await recordHeartbeat(deps.db, agent, 'idle', `last: ${detail} (${outcome})`).catch(logged('the idle heartbeat'))
    },
  }
}
