// One spawn job, start to end: the message lease (anti-race), the claim (`spawning` +
// `spawn_started`), the run (run-spawn.ts), the job completed or failed in the queue, the
// follow-up job of a QA re-spawn sent once the lease is released.
import { sql } from 'drizzle-orm'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { acquireLease, readLease, releaseLease, type LeaseOwner } from '#layers/health/core/leases'
import { recordSpawnIteration } from './iteration'
import { keepLeases, messageLeaseName, type HeldLease } from './leases'
import { sendJob } from './orchestrator'
import type { SpawnJob } from './queue'
import { spawnAndFinish } from './run-spawn'
import { loadContext, setInbox, updateSpawn } from './spawn-context'
import type { Finished, FollowUp, WorkerDeps } from './worker-deps'

export async function processSpawnJob(
  deps: WorkerDeps,
  job: SpawnJob,
  run: { slots: HeldLease[], workerId: string, claimedAt: number },
): Promise<string> {
  const { db, config } = deps
  const { spawnId, messageId } = job.data
  const owner: LeaseOwner = { holder: `${run.workerId}:${spawnId}`, host: deps.host, pid: deps.pid }
  const lease = messageLeaseName(messageId)
  // Book-keeping after the outcome is recorded: a failure is logged, never allowed to mask it
  // (pg-boss expires an unfinished job; a lease left behind expires or is taken from a dead holder).
  const logged = (what: string) => (error: unknown) =>
    void deps.log(`[atlas-spawn-worker] message #${messageId}: ${what} failed: ${(error as Error).message}`)
  // The attempt's iteration under the task it worked on (worksites): after the outcome, never masking it.
  const recordIteration = () => recordSpawnIteration(db, spawnId).catch(logged(`writing the iteration of spawn ${spawnId}`))
  if (!(await acquireLease(db, lease, owner, config.leaseTtlMs))) {
    const held = await readLease(db, lease)
    await deps.audit(db, {
      messageId,
      action: 'spawn_skipped_lock_held',
      actor: deps.actor,
      details: {
        lease,
        spawnId,
        heldBy: held ? { host: held.host, pid: held.pid, since: held.acquiredAt.toISOString() } : null,
        by: { host: deps.host, pid: deps.pid },
      },
    })
    await deps.queue.complete(job, { skipped: 'lock_held' }).catch(logged('completing the skipped job'))
    return 'skipped_lock_held'
  }
  const keeper = keepLeases(db, [{ name: lease, holder: owner.holder }, ...run.slots], config.leaseTtlMs, () => deps.queue.touch(job))
  let followUp: FollowUp | null = null
  try {
    const claimed = await db.transaction(async (tx) => {
      const rows = await tx
        .update(atlasSpawns)
        .set({
          status: 'running',
          claimedAt: new Date(),
          host: deps.host,
          pid: deps.pid,
          worker: run.workerId,
          jobId: job.id,
          model: config.model,
        })
        .where(sql`${atlasSpawns.id} = ${spawnId}::uuid and ${atlasSpawns.status} = 'queued'`)
        .returning({ id: atlasSpawns.id, iteration: atlasSpawns.iteration })
      if (rows.length === 0) return null
      await setInbox(tx, messageId, 'spawning')
      await deps.audit(tx, {
        messageId,
        action: 'spawn_started',
        actor: deps.actor,
        details: {
          spawnId,
          iteration: rows[0]!.iteration,
          jobId: job.id,
          host: deps.host,
          pid: deps.pid,
          worker: run.workerId,
          model: config.model,
        },
      })
      return rows[0]!
    })
    if (!claimed) {
      await deps.queue.complete(job, { skipped: 'not_queued' }).catch(logged('completing the stale job'))
      return 'stale'
    }
    const context = await loadContext(db, spawnId)
    if (!context) throw new Error(`spawn ${spawnId}: its message ${messageId} is gone`)
    let outcome: Finished
    try {
      outcome = await spawnAndFinish(deps, context, job, keeper.lost, run.claimedAt)
    }
    catch (error) {
      const reason = `the spawn engine failed: ${(error as Error).message}`
      deps.log(`[atlas-spawn-worker] message #${messageId}: ${(error as Error).stack ?? reason}`)
      const recorded = await db
        .transaction(async (tx) => {
          if (!(await updateSpawn(tx, spawnId, { status: 'failed', outcome: 'spawn_failed', reason, endedAt: new Date() }))) return false
          await setInbox(tx, messageId, 'spawn_failed', { reason, needsHuman: true })
          await deps.audit(tx, { messageId, action: 'spawn_failed', actor: deps.actor, details: { spawnId, reason } })
          return true
        })
        .catch((failure: unknown) => {
          logged('recording the failed spawn')(failure)
          return false
        })
      await deps.queue.fail(job.id, { reason }).catch(logged('failing the job'))
      if (!recorded) throw error
      await recordIteration()
      return 'spawn_failed'
    }
    followUp = outcome.followUp
    await recordIteration()
    await deps.queue.complete(job, { outcome: outcome.outcome }).catch(logged('completing the job'))
    return outcome.outcome
  }
  finally {
    keeper.stop()
    await releaseLease(db, lease, owner.holder).catch(logged('releasing the message lease'))
    if (followUp) await sendJob(deps, followUp)
  }
}
