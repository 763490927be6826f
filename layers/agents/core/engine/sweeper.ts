// Runs orphaned by a stopped hub (issue 19): a run is driven inside the hub process that
// started or resumed it; when that process is gone, nothing will ever finish the run, so it is
// marked failed with a clear error instead of showing `running` forever. Checked at hub start
// and by the lock-guardian automate. A run driven on another host cannot be checked from here
// and is left alone; a run with no recorded driver (older rows) is swept once it has made no
// progress for ORPHAN_IDLE_MS.
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentRuns } from '#db/schema/agent-runs'

export const ORPHAN_IDLE_MS = 60 * 60_000

export interface SweepDeps {
  db: Db
  host: string
  isProcessAlive: (pid: number) => boolean
  now?: () => Date
}

export interface SweptRun { id: string, error: string }

/** Marks `running` runs whose driving process is gone as failed; returns what it swept. */
export async function sweepOrphanRuns(deps: SweepDeps): Promise<SweptRun[]> {
  const now = (deps.now ?? (() => new Date()))()
  const running = await deps.db
    .select({ id: agentRuns.id, host: agentRuns.runnerHost, pid: agentRuns.runnerPid, updatedAt: agentRuns.updatedAt })
    .from(agentRuns)
    .where(eq(agentRuns.status, 'running'))
  const swept: SweptRun[] = []
  for (const run of running) {
    let error: string | null = null
    if (run.host === deps.host && run.pid !== null && !deps.isProcessAlive(run.pid)) {
      error = `orphaned: the hub process ${run.pid} on ${run.host} that drove this run stopped before it ended`
    }
    else if ((run.host === null || run.pid === null) && now.getTime() - run.updatedAt.getTime() > ORPHAN_IDLE_MS) {
      error = `orphaned: no hub process drives this run and it made no progress for ${ORPHAN_IDLE_MS / 60_000} minutes`
    }
    if (!error) continue
    // Only if it is still running and untouched since it was read (a live driver wins the race).
    const updated = await deps.db.update(agentRuns).set({ status: 'failed', error, endedAt: now, updatedAt: now })
      .where(and(eq(agentRuns.id, run.id), eq(agentRuns.status, 'running'), sql`date_trunc('milliseconds', ${agentRuns.updatedAt}) = ${run.updatedAt.toISOString()}::timestamptz`))
      .returning({ id: agentRuns.id })
    if (updated.length > 0) swept.push({ id: run.id, error })
  }
  return swept
}

/** process.kill(pid, 0): alive when it exists, even owned by someone else (EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  }
  catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
