// The spawn worker: takes jobs from the queue within a global and a per-host concurrency cap
// (slot leases) and runs each one (job.ts), after recovering the spawns a dead worker left.
// A job's run, file by file: job.ts (message lease, claim), run-spawn.ts (routing, briefing,
// the agent), deploy-qa.ts (a chantier's deploy, QA, re-spawns), outcomes.ts (failure,
// escalation, the registry's counters), spawn-lessons.ts (every outcome a lesson).
import { randomUUID } from 'node:crypto'
import type { LeaseOwner } from '#layers/health/core/leases'
import { registerWorker, type WorkerPresence } from '#layers/health/core/workers'
import { processSpawnJob } from './job'
import { isConnectionError, reasonOf } from './events'
import { acquireSlot, globalSlotName, hostSlotName, releaseAll, type HeldLease } from './leases'
import { queueMessage, recover } from './orchestrator'
import { engineOff, engineOffNote, type EngineOff } from './switch'
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
  const { config } = deps
  const workerId = randomUUID()
  const running = new Set<Promise<void>>()
  const idle = async () => {
    if (running.size > 0) await Promise.race([...running, sleep(config.pollMs, deps.signal)])
    else await sleep(config.pollMs, deps.signal)
  }
  const presence = await announce(deps, workerId, options.mode, () => running.size)
  try {
    await retryLostSpawns(deps)
    await work(deps, options, report, workerId, running, idle)
    await Promise.allSettled([...running])
  }
  finally {
    await presence?.stop().catch((error: Error) => deps.log(`[atlas-spawn-worker] could not record this worker's stop: ${error.message}`))
  }
  return report
}

/** Registers this worker in the roll call and heartbeats it; the health page reads it. */
async function announce(
  deps: WorkerDeps,
  workerId: string,
  mode: string,
  running: () => number,
): Promise<{ stop: () => Promise<void> } | undefined> {
  let presence: WorkerPresence
  try {
    presence = await registerWorker(deps.db, {
      id: workerId,
      host: deps.host,
      pid: deps.pid,
      mode,
      heartbeatEveryMs: deps.config.heartbeatMs,
    })
  }
  catch (error) {
    // The roll call is for people watching; a worker that cannot join it still works.
    deps.log(`[atlas-spawn-worker] could not register this worker (the health page will not list it): ${(error as Error).message}`)
    return undefined
  }
  const timer = setInterval(() => {
    presence.beat(running()).catch((error: Error) => deps.log(`[atlas-spawn-worker] heartbeat not recorded: ${error.message}`))
  }, deps.config.heartbeatMs)
  timer.unref()
  return {
    stop: async () => {
      clearInterval(timer)
      await presence.stop()
    },
  }
}

async function work(deps: WorkerDeps, options: { mode: 'drain' | 'forever', maxJobs?: number }, report: WorkerReport, workerId: string, running: Set<Promise<void>>, idle: () => Promise<void>): Promise<void> {
  const { config, db } = deps
  let saidOffBy: 'env' | 'hub' | null = null
  while (!deps.signal?.aborted) {
    // Read at every turn: a founder's switch in the hub stops the next job, not the running ones.
    let off: EngineOff
    try {
      off = await engineOff(db, config.disabled)
    }
    catch (error) {
      if (!isConnectionError(error) || (options.mode === 'drain' && running.size === 0)) throw error
      deps.log(`[atlas-spawn-worker] the engine's switch could not be read (${reasonOf(error)}); trying again in ${config.pollMs} ms`)
      await sleep(config.pollMs, deps.signal)
      continue
    }
    if (off) {
      // Said once per switching off, not at every poll of a long-running worker.
      if (off.by !== saidOffBy) deps.log(`[atlas-spawn-worker] ${engineOffNote(off)}; no job is taken`)
      saidOffBy = off.by
      if (options.mode === 'drain') break
      await idle()
      continue
    }
    saidOffBy = null
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
    let hostSlot: HeldLease | null = null
    let globalSlot: HeldLease | null = null
    try {
      hostSlot = await acquireSlot(db, n => hostSlotName(deps.host, n), config.hostConcurrency, owner, config.leaseTtlMs)
      globalSlot = hostSlot ? await acquireSlot(db, globalSlotName, config.globalConcurrency, owner, config.leaseTtlMs) : null
    }
    catch (error) {
      // The database restarting or out of reach: the running spawns go on (their leases are
      // heartbeated apart), and this loop tries again at the next poll rather than ending the worker.
      deps.log(`[atlas-spawn-worker] the concurrency slots could not be read (${reasonOf(error)}); trying again in ${config.pollMs} ms`)
      await releaseAll(db, [hostSlot, globalSlot])
      // A refused statement is a bug, not an outage; a draining run with nothing in hand ends
      // with the error too: cron's next run (or systemd's restart) tries again.
      if (!isConnectionError(error) || (options.mode === 'drain' && running.size === 0)) throw error
      await sleep(config.pollMs, deps.signal)
      continue
    }
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
}

/**
 * Before taking jobs: a spawn left running by a worker that died (its lease expired, or its
 * holder is a dead process of this host: a SIGKILLed worker) is recorded as lost and, unless
 * the message keeps losing its worker, queued again at once, so this run spawns it.
 */
async function retryLostSpawns(deps: WorkerDeps): Promise<void> {
  try {
    // Queueing again is the engine's work: not while it is switched off.
    if (await engineOff(deps.db, deps.config.disabled)) return
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
