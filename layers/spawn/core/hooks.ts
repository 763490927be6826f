// What the spawn engine tells other domains, as functions it receives.
import { randomUUID } from 'node:crypto'
import type { Db } from '#db/client'
import { recordSpawnOutcome } from '#layers/agents/core/counters'
import { recordConsumption } from '#layers/ai/core/ledger'
import type { ResultFigures } from './stream'

export type SpawnOutcomeKind = 'completed' | 'failed'

export interface SpawnFinished {
  agentCodename: string
  outcome: SpawnOutcomeKind
  /** Where the trail points: `atlas#<message>/spawn/<id>`. */
  ref: string
  summary: string
}

/** How the engine tells the agents registry a spawn ended; the worker takes it as a dependency. */
export type OnSpawnFinished = (finished: SpawnFinished) => Promise<void>

/** The default: the agents registry's counters (spawn_count, error_count, activity, experience). */
export function countInAgentsRegistry(db: Db): OnSpawnFinished {
  return async ({ agentCodename, outcome, ref, summary }) => {
    await recordSpawnOutcome(db, agentCodename, outcome, { ref, summary })
  }
}

/** A spawn lost before it was routed counts for Atlas, the orchestrator (also routing's fallback agent). */
export const SPAWN_AGENT_CODENAME = 'orchestrator'

export const SPAWN_FEATURE = 'atlas_spawn'

/** The cost, duration and tokens of the agent's result event, into the AI ledger (ai_consumption). */
export async function recordSpawnConsumption(db: Db, input: {
  spawnId: string
  figures: ResultFigures
  modelRequested: string
  tenant: string | null
  actor: string
  iteration: number
  ok: boolean
  error: string | null
}): Promise<void> {
  const model = input.figures.model ?? input.modelRequested
  await recordConsumption(db, {
    callId: /^[0-9a-f-]{36}$/i.test(input.spawnId) ? input.spawnId : randomUUID(),
    at: new Date(),
    kind: 'agent',
    provider: 'anthropic',
    via: 'agent-cli',
    model,
    modelRequested: input.modelRequested,
    feature: SPAWN_FEATURE,
    tenant: input.tenant,
    actor: input.actor,
    attempt: input.iteration,
    outcome: input.ok ? 'ok' : 'failed',
    error: input.error ? input.error.slice(0, 500) : null,
    httpStatus: null,
    tokensIn: input.figures.tokensIn,
    tokensOut: input.figures.tokensOut,
    reportedCostUsd: input.figures.costUsd,
    durationMs: input.figures.durationMs ?? 0,
    failoverChain: [],
  })
}
