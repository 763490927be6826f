// The runtime counters (atlas-agentic-core.md §2.2): the spawn engine reports each spawn's
// outcome through this one function — spawn_count always, error_count on failure, the
// last-spawn / last-error times, one activity line and the experience ledger — in one
// transaction, so the counters and their trail never disagree.
import { eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { agents, agentsActivity, agentsExperience, agentsExperienceHistory } from '#db/schema/agents'
import { AgentsError } from './errors'

export const SPAWN_OUTCOMES = ['completed', 'failed'] as const
export type SpawnOutcome = typeof SPAWN_OUTCOMES[number]

/** Experience points per outcome. */
export const EXPERIENCE_DELTA: Record<SpawnOutcome, number> = { completed: 10, failed: 2 }

export interface SpawnCounters {
  codename: string
  spawnCount: number
  errorCount: number
}

export async function recordSpawnOutcome(
  db: Db,
  codename: string,
  outcome: SpawnOutcome,
  options: { ref?: string | null, summary?: string, at?: Date } = {},
): Promise<SpawnCounters> {
  if (!(SPAWN_OUTCOMES as readonly string[]).includes(outcome))
    throw new AgentsError('bad_outcome', `the outcome must be completed or failed (got ${String(outcome)})`)
  const at = options.at ?? new Date()
  const failed = outcome === 'failed'
  return await db.transaction(async (tx) => {
    const [row] = await tx
      .update(agents)
      .set({
        spawnCount: sql`${agents.spawnCount} + 1`,
        errorCount: failed ? sql`${agents.errorCount} + 1` : agents.errorCount,
        lastSpawnAt: at,
        ...(failed ? { lastErrorAt: at } : {}),
      })
      .where(eq(agents.codename, codename))
      .returning({ codename: agents.codename, spawnCount: agents.spawnCount, errorCount: agents.errorCount })
    if (!row) throw new AgentsError('unknown_agent', `no agent with codename "${codename}"`)
    await tx
      .insert(agentsActivity)
      .values({ agent: codename, kind: `spawn_${outcome}`, summary: options.summary ?? '', ref: options.ref ?? null, createdAt: at })
    const delta = EXPERIENCE_DELTA[outcome]
    await tx
      .insert(agentsExperience)
      .values({ agent: codename, xp: delta, missions: 1, successes: failed ? 0 : 1, failures: failed ? 1 : 0, updatedAt: at })
      .onConflictDoUpdate({
        target: agentsExperience.agent,
        set: {
          xp: sql`${agentsExperience.xp} + ${delta}`,
          missions: sql`${agentsExperience.missions} + 1`,
          successes: sql`${agentsExperience.successes} + ${failed ? 0 : 1}`,
          failures: sql`${agentsExperience.failures} + ${failed ? 1 : 0}`,
          updatedAt: at,
        },
      })
    await tx
      .insert(agentsExperienceHistory)
      .values({ agent: codename, delta, reason: `spawn ${outcome}${options.ref ? ` (${options.ref})` : ''}`, createdAt: at })
    return row
  })
}
