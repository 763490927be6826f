// The spawn worker: takes jobs from the queue within a global and a per-host concurrency cap
// (slot leases) and runs each one (job.ts), after recovering the spawns a dead worker left.
// A job's run, file by file: job.ts (message lease, claim), run-spawn.ts (routing, briefing,
// the agent), deploy-qa.ts (a chantier's deploy, QA, re-spawns), outcomes.ts (failure,
// escalation, the registry's counters), spawn-lessons.ts (every outcome a lesson).
import { randomUUID } from 'node:crypto'
import type { LeaseOwner } from '../../../health/core/leases'
import { processSpawnJob } from './job'
import { acquireSlot, globalSlotName, hostSlotName, releaseAll } from './leases'
import { queueMessage, recover } from './orchestrator'
import type { SpawnJob } from './queue'
import type { WorkerDeps } from './worker-deps'

export type { WorkerDeps } from './worker-deps'
export { processSpawnJob } from './job'

export interface WorkerReport {
  processed: number
  outcomes: Array<{ messageId: number, spawnId: string, outcome: string }>
}
const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms)
  signal?.addEventListener('abort', () => {
    clearTimeout(timer)
    resolve()
  }, { once: true })
})

/**
 * Runs the worker. `drain` (the crontab's single-host default): works while there are jobs,
 * then returns. `forever`: a long-running worker (other hosts), until `signal`.
 */
export async function runSpawnWorker(deps: WorkerDeps, options: { mode: 'drain' | 'forever', maxJobs?: number } = { mode: 'drain' }): Promise<WorkerReport> {
  const report: WorkerReport = { processed: 0, outcomes: [] }
  const { config, db } = deps
  const workerId = randomUUID()
  const running = new Set<Promise<void>>()
  const idle = async () => {
    if (running.size > 0) await Promise.race([...running, sleep(config.pollMs, deps.signal)])
    else await sleep(config.pollMs, deps.signal)
  }
  if (!config.disabled) await retryLostSpawns(deps)
  while (!deps.signal?.aborted) {
    if (config.disabled) {
      deps.log('[atlas-spawn-worker] the spawn engine is disabled (ATLAS_SPAWN_DISABLED=1): no job is taken')
      if (options.mode === 'drain') break
      await sleep(config.pollMs, deps.signal)
      continue
    }
    if (options.maxJobs !== undefined && report.processed + running.size >= options.maxJobs) {
      if (running.size === 0) break
      await Promise.race(running)
      continue
    }
    if (running.size >= config.hostConcurrency) {
      await Promise.race(running)
      continue
    }
    const owner: LeaseOwner = { holder: `${workerId}:${randomUUID()}`, host: deps.host, pid: deps.pid }
    const hostSlot = await acquireSlot(db, n => hostSlotName(deps.host, n), config.hostConcurrency, owner, config.leaseTtlMs)
    const globalSlot = hostSlot ? await acquireSlot(db, globalSlotName, config.globalConcurrency, owner, config.leaseTtlMs) : null
    if (!hostSlot || !globalSlot) {
      await releaseAll(db, [hostSlot, globalSlot])
      if (options.mode === 'drain' && running.size === 0) break
      await idle()
      continue
    }
    let job: SpawnJob | null = null
    try {
      job = await deps.queue.fetch()
    }
    catch (error) {
      deps.log(`[atlas-spawn-worker] the queue could not be read: ${(error as Error).message}`)
    }
    const claimedAt = performance.now()
    if (!job) {
      await releaseAll(db, [hostSlot, globalSlot])
      if (options.mode === 'drain' && running.size === 0) break
      await idle()
      continue
    }
    const current = job
    const task = processSpawnJob(deps, current, { slots: [hostSlot, globalSlot], workerId, claimedAt })
      .then((outcome) => {
        report.processed += 1
        report.outcomes.push({ messageId: current.data.messageId, spawnId: current.data.spawnId, outcome })
      })
      .catch((error: unknown) => deps.log(`[atlas-spawn-worker] job ${current.id} failed: ${(error as Error).stack ?? String(error)}`))
      .finally(async () => {
        // The slots are free again before the loop looks for the next job (a re-spawn, say).
        await releaseAll(db, [hostSlot, globalSlot])
        running.delete(task)
      })
    running.add(task)
  }
  await Promise.allSettled([...running])
  return report
}

/**
 * Before taking jobs: a spawn left running by a worker that died (its lease expired, or its
 * holder is a dead process of this host: a SIGKILLed worker) is recorded as lost and, unless
 * the message keeps losing its worker, queued again at once, so this run spawns it.
 */
async function retryLostSpawns(deps: WorkerDeps): Promise<void> {
  try {
    const { lost } = await recover(deps)
    for (const messageId of lost) {
      const queued = await queueMessage(deps, messageId)
      if (queued.kind === 'queued') deps.log(`[atlas-spawn-worker] message #${messageId}: its worker was lost; spawned again now (spawn ${queued.spawnId})`)
    }
  }
  catch (error) {
    deps.log(`[atlas-spawn-worker] the recovery of lost spawns failed (the orchestrator's next cycle retries): ${(error as Error).message}`)
  }
}