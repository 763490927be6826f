// The spawn orchestrator's cycle (every 5 minutes, offset 2, after the collector):
//   1. the kill switch (ATLAS_SPAWN_DISABLED=1, or a founder's switch in the hub: switch.ts):
//      nothing is queued, and it says which side switched it off;
//   2. recovery: a spawn whose worker is gone (its message lease expired) is recorded as
//      lost (spawn_failed, worker_lost) and its message is spawnable again; a queued spawn
//      whose job disappeared gets its job again;
//   3. candidates: status `classified`, intent run / chantier / question / negociation,
//      admitted (core/admission.ts: `auto`, or `approved` by an operator), no spawn audit (started, completed or failed) within the hour,
// at most 3 per cycle;
//   4. each candidate under its message lease (held → `spawn_skipped_lock_held`): status
//      `spawn_queued`, a spawn row, and one pg-boss job for the workers.
import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { acquireLease, releaseLease, readLease, type LeaseOwner } from '#layers/health/core/leases'
import { openTaskOf } from '#layers/worksites/core/iterations'
import { jobExpirySeconds, type SpawnConfig } from './config'
import { countInAgentsRegistry, SPAWN_AGENT_CODENAME, type OnSpawnFinished } from './hooks'
import { messageLeaseName } from './leases'
import { spawnProcesses } from './processes'
import { engineOff, engineOffNote } from './switch'
import { escalationMail, sendTeamMail, type TeamMail } from './notify'
import type { SpawnPorts } from './ports'
import type { SpawnQueue } from './queue'

export interface OrchestratorDeps extends SpawnPorts {
  db: Db
  queue: SpawnQueue
  config: SpawnConfig
  /** Who queues, for the audit (the automate's name). */
  actor: string
  host: string
  pid: number
  log: (line: string) => void
  /** The team's mail: told when a message has lost its worker too often and needs a person. */
  mail?: TeamMail
  /** The agents registry, told of each spawn lost with its worker (default: its counters). */
  onSpawnFinished?: OnSpawnFinished
}

export interface CycleReport {
  disabled: boolean
  /** Which side switched the engine off: the environment or a founder in the hub. */
  disabledBy: 'env' | 'hub' | null
  recovered: { lost: number[], resent: number[] }
  candidates: number[]
  queued: Array<{ messageId: number, spawnId: string, jobId: string | null }>
  skippedLockHeld: number[]
  stale: number[]
}

export const DISABLED_MESSAGE = engineOffNote({ by: 'env' })

export function sendOptions(config: SpawnConfig) {
  return { expireInSeconds: jobExpirySeconds(config), heartbeatSeconds: Math.max(10, Math.ceil((config.leaseTtlMs * 2) / 1000)) }
}

export async function runOrchestratorCycle(
  deps: OrchestratorDeps,
  options: { dryRun?: boolean, limit?: number } = {},
): Promise<CycleReport> {
  const report: CycleReport = {
    disabled: false,
    disabledBy: null,
    recovered: { lost: [], resent: [] },
    candidates: [],
    queued: [],
    skippedLockHeld: [],
    stale: [],
  }
  const off = await engineOff(deps.db, deps.config.disabled)
  if (off) {
    report.disabled = true
    report.disabledBy = off.by
    deps.log(`[atlas-spawn] ${engineOffNote(off)}`)
    return report
  }
  if (!options.dryRun) report.recovered = await recover(deps)
  report.candidates = await findCandidates(
    deps.db,
    deps.config,
    Math.min(options.limit ?? deps.config.maxPerCycle, deps.config.maxPerCycle),
  )
  if (options.dryRun) return report
  for (const messageId of report.candidates) {
    const outcome = await queueMessage(deps, messageId)
    if (outcome.kind === 'queued') report.queued.push({ messageId, spawnId: outcome.spawnId, jobId: outcome.jobId })
    else if (outcome.kind === 'lock_held') report.skippedLockHeld.push(messageId)
    else report.stale.push(messageId)
  }
  return report
}

/**
 * A spawn lost with its worker (killed, host gone, worker stopped) is not the message's doing:
 * its audits do not hold the message back, so it is spawned again once the lease expired —
 * up to this many lost spawns in the recent window, after which it waits like any other.
 */
export const LOST_SPAWNS_RETRIED = 3

export async function findCandidates(db: Db, config: Pick<SpawnConfig, 'recentWindowMinutes'>, limit: number): Promise<number[]> {
  const window = sql`now() - make_interval(mins => ${config.recentWindowMinutes})`
  const rows = await db.execute<{ message_id: string | number }>(sql`
    select i.message_id
    from atlas_inbox i
    where i.status = 'classified'
      and i.intent in ('run', 'chantier', 'question', 'negociation')
      and i.admission in ('auto', 'approved')
      and not exists (
        select 1 from atlas_audit a
        where a.message_id = i.message_id
          and a.action in ('spawn_started', 'spawn_completed', 'spawn_failed')
          and a.at > ${window}
          and not exists (select 1 from atlas_spawns lost where lost.message_id = a.message_id and lost.id::text = a.details->>'spawnId' and lost.status = 'lost'))
      and (select count(*) from atlas_spawns lost where lost.message_id = i.message_id and lost.status = 'lost' and lost.ended_at > ${window}) < ${LOST_SPAWNS_RETRIED}
      and not exists (select 1 from atlas_spawns s where s.message_id = i.message_id and s.status in ('queued', 'running'))
    order by i.received_at, i.id
    limit ${limit}`)
  return rows.map(row => Number(row.message_id))
}

type QueueOutcome = { kind: 'queued', spawnId: string, jobId: string | null } | { kind: 'lock_held' } | { kind: 'stale' }

export async function queueMessage(deps: OrchestratorDeps, messageId: number): Promise<QueueOutcome> {
  const { db } = deps
  const owner: LeaseOwner = { holder: randomUUID(), host: deps.host, pid: deps.pid }
  const lease = messageLeaseName(messageId)
  if (!await acquireLease(db, lease, owner, deps.config.leaseTtlMs)) {
    const held = await readLease(db, lease)
    await deps.audit(db, {
      messageId,
      action: 'spawn_skipped_lock_held',
      actor: deps.actor,
      details: {
        lease,
        heldBy: held ? { host: held.host, pid: held.pid, since: held.acquiredAt.toISOString() } : null,
        by: { host: deps.host, pid: deps.pid },
      },
    })
    deps.log(`[atlas-spawn] message #${messageId}: skipped, its lease is held${held ? ` by ${held.host}:${held.pid}` : ''}`)
    return { kind: 'lock_held' }
  }
  try {
    const spawnId = await db.transaction(async (tx) => {
      const [updated] = await tx.execute<{ id: number, chantier_id: string | null }>(sql`
        update atlas_inbox set status = 'spawn_queued', status_reason = null, revision = revision + 1, updated_at = now()
        where message_id = ${messageId} and status = 'classified' and intent in ('run', 'chantier', 'question', 'negociation') and admission in ('auto', 'approved')
        returning id, case when materialised_kind = 'chantier' then materialised_id end as chantier_id`)
      if (!updated) return null
      // The worksites task the spawn works on: the first open task of the chantier the message drafted.
      const taskId = updated.chantier_id ? await openTaskOf(tx, updated.chantier_id) : null
      const [spawn] = await tx.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'queued', queuedBy: deps.actor, taskId }).returning({ id: atlasSpawns.id })
      return spawn!.id
    })
    if (!spawnId) return { kind: 'stale' }
    const jobId = await sendJob(deps, { spawnId, messageId, iteration: 1 })
    deps.log(`[atlas-spawn] message #${messageId}: queued (spawn ${spawnId}${jobId ? `, job ${jobId}` : ', job pending'})`)
    return { kind: 'queued', spawnId, jobId }
  }
  finally {
    await releaseLease(db, lease, owner.holder)
  }
}

/** Sends the job of a queued spawn and records its id; null when the queue refused it. */
export async function sendJob(deps: Pick<OrchestratorDeps, 'db' | 'queue' | 'config' | 'log'>, data: { spawnId: string, messageId: number, iteration: number }): Promise<string | null> {
  let jobId: string | null
  try {
    jobId = await deps.queue.send(data, sendOptions(deps.config))
  }
  catch (error) {
    deps.log(`[atlas-spawn] message #${data.messageId}: the job could not be queued (${(error as Error).message}); the next cycle tries again`)
    return null
  }
  if (jobId) await deps.db.execute(sql`update atlas_spawns set job_id = ${jobId} where id = ${data.spawnId}::uuid and status = 'queued'`)
  return jobId
}

/**
 * A running spawn whose message lease can be taken (expired, or held by a dead process of this
 * host) has no live worker: record what happened
 * and make the message spawnable again. A queued spawn with no live job gets one.
 */
/**
 * A lost spawn counts as a failed one for the agent it was routed to (the orchestrator when
 * it died before being routed); the team hears when the message needs a person.
 */
async function tellLost(
  deps: OrchestratorDeps,
  messageId: number,
  spawn: { id: string, iteration: number, agent_codename: string | null },
  lost: { givenUp: boolean, reason: string },
): Promise<void> {
  const ref = `atlas#${messageId}/spawn/${spawn.id}`
  await (deps.onSpawnFinished ?? countInAgentsRegistry(deps.db))({
    agentCodename: spawn.agent_codename ?? SPAWN_AGENT_CODENAME,
    outcome: 'failed',
    ref,
    summary: `message #${messageId}, spawn ${spawn.iteration}: lost with its worker`,
  }).catch(error => deps.log(`[atlas-spawn] ${ref}: the agents registry was not updated (${(error as Error).message})`))
  if (!lost.givenUp || !deps.mail) return
  const [message] = await deps.db
    .select({ id: atlasMessages.id, subject: atlasMessages.subject, fromAddress: atlasMessages.fromAddress })
    .from(atlasMessages)
    .where(eq(atlasMessages.id, messageId))
  if (!message) return
  const mailed = await sendTeamMail(deps.mail, escalationMail(message, lost.reason, {}), { actor: deps.actor, messageId })
  deps.log(`[atlas-spawn] message #${messageId}: team ${mailed}`)
}

type RunningSpawn = {
  id: string
  message_id: string | number
  job_id: string | null
  host: string | null
  pid: number | null
  worker: string | null
  last_event_at: string | Date | null
  last_event_type: string | null
  iteration: number
  agent_codename: string | null
}
type Lease = Awaited<ReturnType<typeof readLease>>

/**
 * Marks a running spawn lost, its message back to classified (or to a person when it keeps
 * losing its worker), audited; null when the spawn was no longer running.
 */
async function markLost(
  deps: OrchestratorDeps,
  spawn: RunningSpawn,
  messageId: number,
  previous: Lease,
): Promise<{ givenUp: boolean, reason: string } | null> {
  return await deps.db.transaction(async (tx) => {
    const updated = await tx.execute<{ id: string }>(sql`
      update atlas_spawns set status = 'lost', outcome = 'worker_lost', ended_at = now(),
        reason = ${
          previous && previous.host === deps.host && previous.expiresAt.getTime() > Date.now()
            ? `the worker ${spawn.host ?? '?'}:${spawn.pid ?? '?'} is dead (no such process on this host)`
            : `the worker ${spawn.host ?? '?'}:${spawn.pid ?? '?'} stopped heartbeating (its lease expired)`
        }
      where id = ${spawn.id}::uuid and status = 'running' returning id`)
    if (updated.length === 0) return null
    const [count] = await tx.execute<{ n: number }>(sql`
      select count(*)::int as n from atlas_spawns
      where message_id = ${messageId} and status = 'lost' and ended_at > now() - make_interval(mins => ${deps.config.recentWindowMinutes})`)
    // A message that keeps losing its worker (it may be what kills it) goes to a person.
    const givenUp = count!.n >= LOST_SPAWNS_RETRIED
    const inboxReason = givenUp
      ? `the spawn worker was lost ${count!.n} times within ${deps.config.recentWindowMinutes} min: a person should look before it runs again`
      : 'the spawn worker was lost mid-spawn; re-spawnable'
    await tx.execute(sql`
      update atlas_inbox set status = ${givenUp ? 'spawn_failed' : 'classified'}, status_reason = ${inboxReason},
        needs_human = ${givenUp}, revision = revision + 1, updated_at = now()
      where message_id = ${messageId} and status in ('spawning', 'deploying', 'qa', 'spawn_queued')`)
    await deps.audit(tx, {
      messageId,
      action: 'spawn_failed',
      actor: deps.actor,
      details: {
        reason: 'worker_lost',
        spawnId: spawn.id,
        iteration: spawn.iteration,
        worker: { host: spawn.host, pid: spawn.pid, id: spawn.worker },
        lease: previous ? { expiredAt: previous.expiresAt.toISOString(), lastHeartbeat: previous.heartbeatAt.toISOString() } : null,
        lastEvent: spawn.last_event_at ? { type: spawn.last_event_type, at: new Date(spawn.last_event_at).toISOString() } : null,
        lostWithinWindow: count!.n,
        next: givenUp ? 'needs a person: not spawned again automatically' : 'back to classified: spawned again at the next cycle',
      },
    })
    return { givenUp, reason: inboxReason }
  })
}

/** Recovers one running spawn whose worker is gone, under its message's lease; true when it was marked lost. */
async function recoverRunning(deps: OrchestratorDeps, spawn: RunningSpawn): Promise<boolean> {
  const { db } = deps
  const messageId = Number(spawn.message_id)
  const owner: LeaseOwner = { holder: randomUUID(), host: deps.host, pid: deps.pid }
  const lease = messageLeaseName(messageId)
  const previous = await readLease(db, lease)
  if (!await acquireLease(db, lease, owner, deps.config.leaseTtlMs)) return false
  try {
    // A dead worker's agent on this host may still be in its TERM grace (its wrapper stops
    // it when the worker goes): spawning the message again now would run it twice at once.
    const lingering = spawn.host === deps.host ? spawnProcesses({ spawnId: spawn.id }) : []
    if (lingering.length > 0) {
      deps.log(`[atlas-spawn] message #${messageId}: spawn ${spawn.id} lost its worker, but ${lingering.length} of its process(es) still run here (${lingering.join(', ')}); recovered once they are gone`)
      return false
    }
    const done = await markLost(deps, spawn, messageId, previous)
    if (!done) return false
    deps.log(`[atlas-spawn] message #${messageId}: spawn ${spawn.id} lost (worker ${spawn.host}:${spawn.pid} gone); ${done.givenUp ? 'needs a person' : 'spawnable again'}`)
    if (spawn.job_id) {
      await deps.queue.fail(spawn.job_id, { reason: 'worker_lost' })
        .catch(error => deps.log(`[atlas-spawn] message #${messageId}: failing job ${spawn.job_id} of the lost spawn failed (pg-boss expires it anyway): ${(error as Error).message}`))
    }
    await tellLost(deps, messageId, spawn, done)
    return true
  }
  finally {
    await releaseLease(db, lease, owner.holder)
  }
}

/** Sends again the job of a spawn queued for over 30 s whose job is gone; the message ids resent. */
async function resendQueued(deps: OrchestratorDeps): Promise<number[]> {
  const resent: number[] = []
  const queued = await deps.db.execute<{ id: string, message_id: string | number, job_id: string | null, iteration: number }>(sql`
    select id, message_id, job_id, iteration from atlas_spawns
    where status = 'queued' and queued_at < now() - interval '30 seconds'`)
  for (const spawn of queued) {
    // A job whose state cannot be read counts as alive: re-sending it could spawn the message twice.
    const state = spawn.job_id
      ? await deps.queue.state(spawn.job_id).catch((error) => {
          deps.log(`[atlas-spawn] spawn ${spawn.id}: reading job ${spawn.job_id} failed, left as it is: ${(error as Error).message}`)
          return 'unknown'
        })
      : null
    if (state === 'created' || state === 'retry' || state === 'active' || state === 'unknown') continue
    const jobId = await sendJob(deps, { spawnId: spawn.id, messageId: Number(spawn.message_id), iteration: spawn.iteration })
    if (jobId) resent.push(Number(spawn.message_id))
  }
  return resent
}

export async function recover(deps: OrchestratorDeps): Promise<CycleReport['recovered']> {
  const lost: number[] = []
  const running = await deps.db.execute<RunningSpawn>(sql`
    select s.id, s.message_id, s.job_id, s.host, s.pid, s.worker, s.last_event_at, s.last_event_type, s.iteration, s.agent_codename
    from atlas_spawns s
    where s.status = 'running'
      and not exists (select 1 from ops_locks l where l.name = 'atlas-spawn:message:' || s.message_id and l.expires_at >= now() and l.host <> ${deps.host})`)
  for (const spawn of running) {
    if (await recoverRunning(deps, spawn)) lost.push(Number(spawn.message_id))
  }
  return { lost, resent: await resendQueued(deps) }
}
