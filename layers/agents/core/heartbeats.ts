// Heartbeats: each agent's last reported state, and the live state the reactor shows —
// a beat older than HEARTBEAT_STALE_MS reads as "silent", no beat at all as "dormant".
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { AGENT_HEARTBEAT_STATES, agents, agentsHeartbeats, type AgentHeartbeatState } from '#db/schema/agents'
import { AgentsError } from './errors'

export const HEARTBEAT_STALE_MS = 10 * 60_000

export type LiveState = AgentHeartbeatState | 'silent' | 'dormant'

export function liveState(beat: { state: string, beatAt: Date | string } | null | undefined, now: Date = new Date()): LiveState {
  if (!beat) return 'dormant'
  const at = beat.beatAt instanceof Date ? beat.beatAt : new Date(beat.beatAt)
  if (now.getTime() - at.getTime() > HEARTBEAT_STALE_MS) return 'silent'
  return (AGENT_HEARTBEAT_STATES as readonly string[]).includes(beat.state) ? beat.state as AgentHeartbeatState : 'silent'
}

/** Records an agent's heartbeat (one row per agent, the latest wins). */
export async function recordHeartbeat(db: Db, codename: string, state: AgentHeartbeatState, detail = '', at: Date = new Date()): Promise<void> {
  if (!(AGENT_HEARTBEAT_STATES as readonly string[]).includes(state)) throw new AgentsError('bad_state', `the state must be one of ${AGENT_HEARTBEAT_STATES.join(', ')} (got ${String(state)})`)
  const [known] = await db.select({ codename: agents.codename }).from(agents).where(sql`${agents.codename} = ${codename}`)
  if (!known) throw new AgentsError('unknown_agent', `no agent with codename "${codename}"`)
  await db.insert(agentsHeartbeats).values({ agent: codename, state, detail, beatAt: at })
    .onConflictDoUpdate({ target: agentsHeartbeats.agent, set: { state, detail, beatAt: at } })
}
