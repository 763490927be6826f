// The execution log: one ops_cron_runs row per automate execution or skip.
import { desc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../../db/client'
import { opsCronRuns, type CronRunStatus, type OpsCronRun } from '../../../db/schema'

export interface RunIdentity {
  automation: string
  args: string[]
  host: string
  pid: number
}

export async function openRun(db: Db, identity: RunIdentity): Promise<number> {
  const [row] = await db.insert(opsCronRuns).values({ ...identity, status: 'running' }).returning({ id: opsCronRuns.id })
  return row!.id
}

export interface RunOutcome {
  status: Exclude<CronRunStatus, 'running'>
  exitCode: number
  reason?: string
  outputTail?: string
}

export async function closeRun(db: Db, id: number, outcome: RunOutcome): Promise<void> {
  await db.update(opsCronRuns).set({
    status: outcome.status,
    exitCode: outcome.exitCode,
    reason: outcome.reason ?? null,
    outputTail: outcome.outputTail ?? null,
    endedAt: sql`now()`,
    durationMs: sql`(extract(epoch from (now() - ${opsCronRuns.startedAt})) * 1000)::int`,
  }).where(eq(opsCronRuns.id, id))
}

/** A run that never started: the breaker was off or another instance held the lease. */
export async function recordSkip(db: Db, identity: RunIdentity, reason: string): Promise<void> {
  await db.insert(opsCronRuns).values({
    ...identity, status: 'skipped', reason, exitCode: 0, endedAt: sql`now()`, durationMs: 0,
  })
}

export async function recentRuns(db: Db, automation: string, limit = 20): Promise<OpsCronRun[]> {
  return await db.select().from(opsCronRuns).where(eq(opsCronRuns.automation, automation))
    .orderBy(desc(opsCronRuns.startedAt), desc(opsCronRuns.id)).limit(limit)
}
