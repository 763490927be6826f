// The spawn workers' roll call (ops_workers): each worker process registers when it starts,
// heartbeats while it runs (with the number of spawns it holds) and says when it stops. The
// health page reads it: each host's workers, and a host whose workers went silent (no
// heartbeat for three intervals and no stop: killed, host gone, network cut).
import { readFileSync } from 'node:fs'
import { desc, eq, gt, lt, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { opsWorkers, type OpsWorker } from '#db/schema/index'

export type WorkerState = 'alive' | 'silent' | 'stopped'
/** A host is idle when none of its workers runs and none was lost (the crontab's worker between runs). */
export type HostState = 'alive' | 'silent' | 'idle'

/** Rows of workers stopped or silent for longer than this are removed at the next registration. */
const KEEP_DAYS = 7

export interface WorkerRow extends OpsWorker { state: WorkerState }

export interface HostWorkers {
  host: string
  state: HostState
  lastHeartbeatAt: Date
  running: number
  versions: string[]
  workers: WorkerRow[]
}

export interface WorkerPresence {
  id: string
  beat: (running: number) => Promise<void>
  stop: () => Promise<void>
}

/** The version a worker reports: package.json's, read once. */
export const WORKER_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  }
  catch (error) {
    console.error(`[workers] package.json could not be read for the version: ${(error as Error).message}`)
    return 'unknown'
  }
})()

export async function registerWorker(
  db: Db,
  worker: { id: string, host: string, pid: number, mode: string, heartbeatEveryMs: number, version?: string },
): Promise<WorkerPresence> {
  await db.delete(opsWorkers).where(lt(opsWorkers.heartbeatAt, sql`now() - make_interval(days => ${KEEP_DAYS})`))
  await db.insert(opsWorkers).values({
    id: worker.id,
    host: worker.host,
    pid: worker.pid,
    mode: worker.mode,
    heartbeatEveryMs: worker.heartbeatEveryMs,
    version: worker.version ?? WORKER_VERSION,
  })
  return {
    id: worker.id,
    beat: async (running) => {
      await db
        .update(opsWorkers)
        .set({ running, heartbeatAt: sql`now()` })
        .where(eq(opsWorkers.id, worker.id))
    },
    stop: async () => {
      await db
        .update(opsWorkers)
        .set({ running: 0, heartbeatAt: sql`now()`, stoppedAt: sql`now()` })
        .where(eq(opsWorkers.id, worker.id))
    },
  }
}

export function workerState(worker: Pick<OpsWorker, 'stoppedAt' | 'heartbeatAt' | 'heartbeatEveryMs'>, now: Date): WorkerState {
  if (worker.stoppedAt) return 'stopped'
  return now.getTime() - worker.heartbeatAt.getTime() > 3 * worker.heartbeatEveryMs ? 'silent' : 'alive'
}

/**
 * The workers heard from in the last `sinceHours` (default 24), grouped by host.
 * A host is alive when one of its workers is, silent when none is and one went silent.
 */
export async function listHostWorkers(db: Db, options: { sinceHours?: number, now?: Date } = {}): Promise<HostWorkers[]> {
  const [{ now: dbNow } = { now: new Date() }] = await db.execute<{ now: Date }>(sql`select now() as now`)
  const now = options.now ?? new Date(dbNow)
  const since = new Date(now.getTime() - (options.sinceHours ?? 24) * 3_600_000)
  const rows = await db.select().from(opsWorkers)
    .where(gt(opsWorkers.heartbeatAt, since))
    .orderBy(desc(opsWorkers.heartbeatAt))
    .limit(500)
  const hosts = new Map<string, WorkerRow[]>()
  for (const row of rows) hosts.set(row.host, [...(hosts.get(row.host) ?? []), { ...row, state: workerState(row, now) }])
  return [...hosts].map(([host, workers]) => {
    const states = new Set(workers.map(worker => worker.state))
    const state: HostState = states.has('alive') ? 'alive' : states.has('silent') ? 'silent' : 'idle'
    return {
      host,
      state,
      lastHeartbeatAt: workers[0]!.heartbeatAt,
      running: workers.filter(worker => worker.state === 'alive').reduce((sum, worker) => sum + worker.running, 0),
      versions: [...new Set(workers.filter(worker => worker.state !== 'stopped').map(worker => worker.version))],
      workers,
    }
  }).sort((a, b) => a.host.localeCompare(b.host))
}
