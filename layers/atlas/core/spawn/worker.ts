// The spawn worker: takes jobs from the queue within a global and a per-host concurrency cap
// (slot leases), and for each: the message lease (anti-race), `spawning` + `spawn_started`,
// the agent in its pseudo-terminal with its events stored live, the result contract, then
// the post-spawn orchestration:
//   no-code intent (question, negociation, run, or a downgrade to one) → summary → `actioned`;
//   chantier → `deploying` (DEPLOY_COMMAND) → `qa` (browser QA of the contract's routes)
//     → pass: summary → `actioned`; fail: a new spawn carrying the errors, at most 3
//     iterations, then an escalation e-mail → `escalated`.
// A failed spawn (crash, timeout, no or invalid result file) → `spawn_failed`, the reason
// shown, the last checkpoint salvaged when there is one, and the team told.
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import type { Browser } from 'playwright-core'
import type { Db, Tx } from '../../../../db/client'
import { atlasInbox, atlasMessages, atlasReplyDrafts } from '../../../../db/schema/atlas'
import { atlasSpawns, type AtlasSpawn } from '../../../../db/schema/atlas-spawn'
import { clients } from '../../../../db/schema/clients'
import { acquireLease, readLease, releaseLease, type LeaseOwner } from '../../../health/core/leases'
import { recordAtlasAudit } from '../audit'
import { clip } from '../text'
import type { InboxStatus } from '../vocabulary'
import { jobExpirySeconds, type SpawnConfig } from './config'
import type { ResultContract } from './contract'
import { runDeploy } from './deploy'
import { createEventSink } from './events'
import { countInAgentsRegistry, recordSpawnConsumption, SPAWN_AGENT_CODENAME, type OnSpawnFinished, type SpawnOutcomeKind } from './hooks'
import { acquireSlot, globalSlotName, hostSlotName, keepLeases, messageLeaseName, releaseAll, type HeldLease } from './leases'
import { escalationMail, failureMail, sendTeamMail, summaryMail, type MessageRef, type TeamMail } from './notify'
import { queueMessage, recover, sendJob } from './orchestrator'
import { buildSystemPrompt, buildUserPrompt, type PromptTenant, type QaError } from './prompts'
import { launchChromium, QaConfigError, runQa, type QaReport } from './qa'
import { saveReplyDraft, withSignature } from './reply-draft'
import type { SpawnJob, SpawnQueue } from './queue'
import { runAgent, spawnPaths, type AgentRunOutcome } from './run-agent'
import { agentEnvironment, sandboxPolicy, writeSandboxPolicy } from './sandbox'
import { findBinary } from './wrapper-args'
import { disposeWorkspace, keepWorkspace, prepareWorkspace, resolveAgentUser, type AgentUser, type Workspace } from './workspace'

export interface WorkerDeps {
  db: Db
  queue: SpawnQueue
  config: SpawnConfig
  /**
   * The worker's environment: the deploy gets it whole; the agent only its allowlist (PATH,
   * LANG, the model credential… see sandbox.ts), never the database or the mail's secrets.
   */
  env: Readonly<Record<string, string | undefined>>
  /** The user agents run as (resolved from SPAWN_AGENT_USER when the worker is root; null: as the worker). */
  agentUser?: AgentUser | null
  mail: TeamMail
  host: string
  pid: number
  /** For the audit: the automate's name. */
  actor: string
  log: (line: string) => void
  onSpawnFinished?: OnSpawnFinished
  launchBrowser?: () => Promise<Browser>
  /** Stops the worker: no new job, running agents stopped, their messages spawnable again. */
  signal?: AbortSignal
  /** Measurements: a job was claimed / its agent process started. */
  onTiming?: (timing: { spawnId: string, claimedAt: number, agentStartedAt: number }) => void
}

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

interface SpawnContext {
  spawn: AtlasSpawn
  message: MessageRef & { fromName: string | null, textBody: string, receivedAt: Date }
  inbox: { intent: string | null, confidence: number | null, model: string | null, reasoning: string | null, tenantId: string | null }
  tenant: (PromptTenant & { id: string, repository: string | null }) | null
  previous: AtlasSpawn | null
}

async function loadContext(db: Db, spawnId: string): Promise<SpawnContext | null> {
  const [spawn] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, spawnId))
  if (!spawn) return null
  const [row] = await db.select().from(atlasMessages).innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id)).where(eq(atlasMessages.id, spawn.messageId))
  if (!row) return null
  const [client] = row.atlas_inbox.tenantId ? await db.select().from(clients).where(eq(clients.id, row.atlas_inbox.tenantId)) : []
  const [previous] = spawn.previousSpawnId ? await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, spawn.previousSpawnId)) : []
  const m = row.atlas_messages
  const i = row.atlas_inbox
  return {
    spawn,
    message: { id: m.id, subject: m.subject, fromAddress: m.fromAddress, fromName: m.fromName, textBody: m.textBody, receivedAt: m.receivedAt },
    inbox: { intent: i.intent, confidence: i.confidence, model: i.model, reasoning: i.reasoning, tenantId: i.tenantId },
    tenant: client
      ? {
          id: client.id, slug: client.slug, name: client.name,
          preprodUrl: typeof client.config?.preprodUrl === 'string' ? client.config.preprodUrl : null,
          repository: typeof client.config?.repository === 'string' ? client.config.repository : null,
        }
      : null,
    previous: previous ?? null,
  }
}

async function setInbox(db: Db | Tx, messageId: number, status: InboxStatus, extra: { reason?: string | null, needsHuman?: boolean, intent?: string } = {}): Promise<void> {
  await db.execute(sql`
    update atlas_inbox set status = ${status}, status_reason = ${extra.reason ?? null},
      needs_human = ${extra.needsHuman ?? false} or needs_human,
      intent = coalesce(${extra.intent ?? null}, intent),
      revision = revision + 1, updated_at = now()
    where message_id = ${messageId}`)
}

/** Updates the spawn row while it is still ours (running); false when recovery took it. */
async function updateSpawn(db: Db | Tx, spawnId: string, values: Partial<typeof atlasSpawns.$inferInsert>): Promise<boolean> {
  const rows = await db.update(atlasSpawns).set(values).where(sql`${atlasSpawns.id} = ${spawnId}::uuid and ${atlasSpawns.status} = 'running'`).returning({ id: atlasSpawns.id })
  return rows.length === 1
}

export async function processSpawnJob(deps: WorkerDeps, job: SpawnJob, run: { slots: HeldLease[], workerId: string, claimedAt: number }): Promise<string> {
  const { db, config } = deps
  const { spawnId, messageId } = job.data
  const owner: LeaseOwner = { holder: `${run.workerId}:${spawnId}`, host: deps.host, pid: deps.pid }
  const lease = messageLeaseName(messageId)
  // Book-keeping after the outcome is recorded: a failure is logged, never allowed to mask it
  // (pg-boss expires an unfinished job; a lease left behind expires or is taken from a dead holder).
  const logged = (what: string) => (error: unknown) => void deps.log(`[atlas-spawn-worker] message #${messageId}: ${what} failed: ${(error as Error).message}`)
  if (!await acquireLease(db, lease, owner, config.leaseTtlMs)) {
    const held = await readLease(db, lease)
    await recordAtlasAudit(db, {
      messageId, action: 'spawn_skipped_lock_held', actor: deps.actor,
      details: { lease, spawnId, heldBy: held ? { host: held.host, pid: held.pid, since: held.acquiredAt.toISOString() } : null, by: { host: deps.host, pid: deps.pid } },
    })
    await deps.queue.complete(job, { skipped: 'lock_held' }).catch(logged('completing the skipped job'))
    return 'skipped_lock_held'
  }
  const keeper = keepLeases(db, [{ name: lease, holder: owner.holder }, ...run.slots], config.leaseTtlMs, () => deps.queue.touch(job))
  let followUp: { spawnId: string, messageId: number, iteration: number } | null = null
  try {
    const claimed = await db.transaction(async (tx) => {
      const rows = await tx.update(atlasSpawns).set({
        status: 'running', claimedAt: new Date(), host: deps.host, pid: deps.pid, worker: run.workerId, jobId: job.id, model: config.model,
      }).where(sql`${atlasSpawns.id} = ${spawnId}::uuid and ${atlasSpawns.status} = 'queued'`).returning({ id: atlasSpawns.id, iteration: atlasSpawns.iteration })
      if (rows.length === 0) return null
      await setInbox(tx, messageId, 'spawning')
      await recordAtlasAudit(tx, {
        messageId, action: 'spawn_started', actor: deps.actor,
        details: { spawnId, iteration: rows[0]!.iteration, jobId: job.id, host: deps.host, pid: deps.pid, worker: run.workerId, model: config.model },
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
      const recorded = await db.transaction(async (tx) => {
        if (!await updateSpawn(tx, spawnId, { status: 'failed', outcome: 'spawn_failed', reason, endedAt: new Date() })) return false
        await setInbox(tx, messageId, 'spawn_failed', { reason, needsHuman: true })
        await recordAtlasAudit(tx, { messageId, action: 'spawn_failed', actor: deps.actor, details: { spawnId, reason } })
        return true
      }).catch((failure: unknown) => {
        logged('recording the failed spawn')(failure)
        return false
      })
      await deps.queue.fail(job.id, { reason }).catch(logged('failing the job'))
      if (!recorded) throw error
      return 'spawn_failed'
    }
    followUp = outcome.followUp
    await deps.queue.complete(job, { outcome: outcome.outcome }).catch(logged('completing the job'))
    return outcome.outcome
  }
  finally {
    keeper.stop()
    await releaseLease(db, lease, owner.holder).catch(logged('releasing the message lease'))
    if (followUp) await sendJob(deps, followUp)
  }
}

interface Finished { outcome: string, followUp: { spawnId: string, messageId: number, iteration: number } | null }

/** The agent's user: as configured when the worker is root, else the worker's own. */
async function agentUserFor(deps: WorkerDeps): Promise<AgentUser | null> {
  if (deps.agentUser !== undefined) return deps.agentUser
  return process.getuid?.() === 0 ? await resolveAgentUser(deps.config.agentUser) : null
}

async function spawnAndFinish(deps: WorkerDeps, context: SpawnContext, job: SpawnJob, leaseLost: AbortSignal, claimedAt: number): Promise<Finished> {
  const { config } = deps
  const user = await agentUserFor(deps)
  const workspace = await prepareWorkspace({ root: config.spawnRoot, spawnId: context.spawn.id, repository: context.tenant?.repository ?? config.defaultRepository ?? null, owner: user })
  let finished: Finished | null = null
  try {
    finished = await spawnInWorkspace(deps, context, leaseLost, claimedAt, workspace, user)
    return finished
  }
  finally {
    const kept = disposeWorkspace(workspace, keepWorkspace(config.keepWorkdir, finished?.outcome !== 'actioned'))
    if (kept === 'kept') deps.log(`[atlas-spawn-worker] message #${context.message.id}: the spawn's folder is kept as evidence: ${workspace.dir}`)
  }
}

async function spawnInWorkspace(deps: WorkerDeps, context: SpawnContext, leaseLost: AbortSignal, claimedAt: number, workspace: Workspace, user: AgentUser | null): Promise<Finished> {
  const { db, config } = deps
  const { spawn, message } = context
  const intent = context.inbox.intent ?? 'run'
  const paths = { ...spawnPaths(config.tmpDir, spawn.id), resultFile: workspace.resultFile }
  mkdirSync(config.logDir, { recursive: true })
  const logPath = join(config.logDir, `spawn-${spawn.id}.jsonl`)
  const previousContract = (context.previous?.result ?? null) as { commits?: Array<{ sha: string, message: string }>, summary?: string } | null
  const prompt = buildUserPrompt({
    message: { id: message.id, fromAddress: message.fromAddress, fromName: message.fromName, subject: message.subject, textBody: message.textBody, receivedAt: message.receivedAt },
    tenant: context.tenant,
    classification: { intent, confidence: context.inbox.confidence, model: context.inbox.model, reasoning: context.inbox.reasoning },
    previous: spawn.iteration > 1
      ? { iteration: spawn.iteration, maxIterations: config.maxIterations, commits: previousContract?.commits ?? [], errors: (spawn.carriedErrors ?? []) as QaError[], summary: previousContract?.summary ?? null }
      : undefined,
  })
  const systemPrompt = buildSystemPrompt({ resultFile: paths.resultFile, workDir: workspace.workDir, tenant: context.tenant })
  const agentEnv = agentEnvironment(deps.env, config, workspace, { SYNEDRE_MESSAGE_ID: String(message.id), SYNEDRE_TENANT: context.tenant?.slug ?? '' })
  const policy = sandboxPolicy(config, workspace, { agentBin: findBinary(config.agentBin, agentEnv), env: deps.env, user })
  const sandboxFile = writeSandboxPolicy(workspace, policy)
  await updateSpawn(db, spawn.id, { prompt, logPath })

  // The job's expiry is the backstop: past it, the worker stops the agent's whole group.
  const stop = new AbortController()
  const expiry = setTimeout(() => stop.abort(new Error(`the job expired (${jobExpirySeconds(config)} s)`)), Math.max(1000, jobExpirySeconds(config) * 1000 - 5_000))
  const onLost = () => stop.abort(new Error('the message lease was lost (another process took it over)'))
  const onStop = () => stop.abort(new Error('the worker is stopping'))
  leaseLost.addEventListener('abort', onLost, { once: true })
  deps.signal?.addEventListener('abort', onStop, { once: true })
  if (deps.signal?.aborted) onStop()
  let agent: AgentRunOutcome
  try {
    agent = await runAgent({
      spawnId: spawn.id,
      prompt,
      systemPrompt,
      resultFile: paths.resultFile,
      workDir: workspace.workDir,
      spawnDir: paths.spawnDir,
      logPath,
      model: config.model,
      permissionMode: config.permissionMode,
      agentBin: config.agentBin,
      timeoutMs: config.timeoutMs,
      killGraceMs: config.killGraceMs,
      env: agentEnv,
      sandboxFile,
      sink: createEventSink(db, { spawnId: spawn.id, messageId: message.id }, { log: deps.log }),
      signal: stop.signal,
      onAgentStarted: (started) => {
        deps.onTiming?.({ spawnId: spawn.id, claimedAt, agentStartedAt: performance.now() })
        void updateSpawn(db, spawn.id, { agentPid: started.pid, agentStartedAt: started.at })
      },
      log: deps.log,
    })
  }
  finally {
    clearTimeout(expiry)
    leaseLost.removeEventListener('abort', onLost)
    deps.signal?.removeEventListener('abort', onStop)
  }

  const tenantSlug = context.tenant?.slug ?? null
  const figures = agent.result
  await updateSpawn(db, spawn.id, {
    agentEndedAt: new Date(),
    wrapperExitCode: agent.wrapperExitCode,
    costUsd: figures?.costUsd ?? null,
    tokensIn: figures?.tokensIn ?? null,
    tokensOut: figures?.tokensOut ?? null,
    durationMs: figures?.durationMs ?? null,
    numTurns: figures?.numTurns ?? null,
  })

  // The lease was lost: recovery owns the message now; we only stopped our processes.
  if (leaseLost.aborted) return { outcome: 'lease_lost', followUp: null }
  // The worker is stopping: the message goes back to be spawned again.
  if (deps.signal?.aborted && agent.aborted) {
    await abandon(deps, context, 'worker_stopped', `the worker ${deps.host}:${deps.pid} stopped during the spawn; the message is spawnable again`)
    return { outcome: 'worker_stopped', followUp: null }
  }

  const contract = agent.contract
  const killed = agent.timedOut || agent.aborted !== null
  if (figures) {
    await recordSpawnConsumption(db, {
      spawnId: spawn.id, figures, modelRequested: config.model, tenant: tenantSlug, actor: deps.actor, iteration: spawn.iteration,
      ok: !figures.isError && !killed, error: figures.isError ? (figures.errors.join('; ') || figures.subtype) : (killed ? 'killed' : null),
    }).catch(error => deps.log(`[spawn ${spawn.id}] the AI ledger row was not written: ${(error as Error).message}`))
  }

  // An agent killed or ended in error (a result with is_error, a non-zero exit) fails the
  // spawn even with a valid result file: that file is then only its last checkpoint.
  const agentFailed = agent.wrapperExitCode !== 0
  if (killed || agentFailed || !contract.ok) {
    const reason = failureReason(agent, config)
    const salvaged = contract.ok ? contract.contract : null
    return await failSpawn(deps, context, reason, agent, salvaged)
  }

  const result = contract.contract
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, { result: contract.raw, resultSource: 'file' })
    await recordAtlasAudit(tx, {
      messageId: message.id, action: 'spawn_completed', actor: deps.actor,
      details: {
        spawnId: spawn.id, iteration: spawn.iteration, status: result.status, commits: result.commits, routes: result.routes,
        intentCorrection: result.intentCorrection, refusedCorrection: result.refusedCorrection ?? undefined,
        events: agent.events, exitCode: agent.agentExitCode, signal: agent.agentSignal, costUsd: figures?.costUsd ?? null, sandbox: config.sandbox,
        stream: figures ? undefined : 'no result event reached the stream (the terminal may drop the last output); the result file decided',
      },
    })
  })
  await tellAgentsRegistry(deps, context, 'completed', `status ${result.status}`)

  if (!result.ok) {
    return await escalate(deps, context, `the agent ended with status "${result.status}"`, { contract: result, outcome: 'escalated' })
  }
  const finalIntent = result.intentCorrection?.intent ?? intent
  if (finalIntent !== 'chantier') {
    const mailed = await sendTeamMail(deps.mail, summaryMail(message, result, { intent: finalIntent }), { actor: deps.actor, messageId: message.id })
    await db.transaction(async (tx) => {
      await updateSpawn(tx, spawn.id, { status: 'succeeded', outcome: 'actioned', endedAt: new Date(), reason: `summary ${mailed}` })
      await setInbox(tx, message.id, 'actioned', { reason: result.intentCorrection ? `intent corrected by the agent: ${intent} → ${finalIntent}` : null, intent: result.intentCorrection ? finalIntent : undefined })
      await recordActioned(tx, deps, context, result, { intent: finalIntent, summary: mailed })
    })
    deps.log(`[atlas-spawn-worker] message #${message.id}: actioned (${finalIntent}); summary ${mailed}`)
    return { outcome: 'actioned', followUp: null }
  }
  return await deployAndQa(deps, context, result, workspace.workDir)
}

/**
 * The message is actioned: the `actioned` audit, and the agent's reply draft kept (only now:
 * an escalated or failed message never shows a draft saying the request was handled).
 */
async function recordActioned(tx: Tx, deps: WorkerDeps, context: SpawnContext, result: ResultContract, details: Record<string, unknown>): Promise<void> {
  const draft = result.replyDraft ? await saveReplyDraft(tx, { messageId: context.message.id, body: withSignature(clip(result.replyDraft, 20_000), deps.config.teamSignature), actor: deps.actor }) : null
  await recordAtlasAudit(tx, { messageId: context.message.id, action: 'actioned', actor: deps.actor, details: { spawnId: context.spawn.id, iteration: context.spawn.iteration, replyDraftId: draft?.id ?? null, ...details } })
}

/** The agents registry counts the orchestrator's spawns; a failure there never fails the spawn. */
async function tellAgentsRegistry(deps: WorkerDeps, context: SpawnContext, outcome: SpawnOutcomeKind, summary: string): Promise<void> {
  const report = deps.onSpawnFinished ?? countInAgentsRegistry(deps.db)
  const ref = `atlas#${context.message.id}/spawn/${context.spawn.id}`
  try {
    await report({ agentCodename: SPAWN_AGENT_CODENAME, outcome, ref, summary: `message #${context.message.id}, spawn ${context.spawn.iteration}: ${clip(summary, 300)}` })
  }
  catch (error) {
    deps.log(`[atlas-spawn-worker] ${ref}: the agents registry was not updated (${(error as Error).message})`)
  }
}

function failureReason(agent: AgentRunOutcome, config: SpawnConfig): string {
  const checkpoint = agent.contract.ok ? 'the last checkpoint was salvaged' : `no usable checkpoint (${agent.contract.reason})`
  if (agent.timedOut) return `the agent was stopped at the timeout (${config.timeoutMs % 60_000 === 0 ? `${config.timeoutMs / 60_000} min` : `${config.timeoutMs / 1000} s`}); ${checkpoint}`
  if (agent.aborted) return `the agent was stopped: ${agent.aborted}; ${checkpoint}`
  if (agent.wrapperError) return `the agent could not run: ${agent.wrapperError}`
  const exit = agent.agentExitCode !== null && agent.agentExitCode !== 0 ? ` (the agent exited with code ${agent.agentExitCode})` : ''
  const resultError = agent.result?.isError ? ` (its result: ${agent.result.subtype}${agent.result.errors.length ? `: ${agent.result.errors.join('; ').slice(0, 300)}` : ''})` : ''
  if (agent.contract.ok) return `the agent ended in error${exit}${resultError}; ${checkpoint}`
  return `${agent.contract.reason}${exit}${resultError}`
}

async function failSpawn(deps: WorkerDeps, context: SpawnContext, reason: string, agent: AgentRunOutcome, salvaged: ResultContract | null): Promise<Finished> {
  const { db } = deps
  const { spawn, message } = context
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, {
      status: 'failed', outcome: 'spawn_failed', reason, endedAt: new Date(),
      result: salvaged && agent.contract.ok ? agent.contract.raw : null, resultSource: salvaged ? 'checkpoint' : null,
    })
    await setInbox(tx, message.id, 'spawn_failed', { reason, needsHuman: true })
    await recordAtlasAudit(tx, {
      messageId: message.id, action: 'spawn_failed', actor: deps.actor,
      details: {
        spawnId: spawn.id, iteration: spawn.iteration, reason, timedOut: agent.timedOut, aborted: agent.aborted, exitCode: agent.agentExitCode, signal: agent.agentSignal,
        wrapperExitCode: agent.wrapperExitCode, events: agent.events, salvagedCheckpoint: salvaged ? { status: salvaged.status, summary: clip(salvaged.summary, 2000) } : null,
      },
    })
  })
  await tellAgentsRegistry(deps, context, 'failed', reason)
  const mailed = await sendTeamMail(deps.mail, failureMail(message, reason, salvaged), { actor: deps.actor, messageId: message.id })
  deps.log(`[atlas-spawn-worker] message #${message.id}: spawn failed: ${reason}; team ${mailed}`)
  return { outcome: 'spawn_failed', followUp: null }
}

async function abandon(deps: WorkerDeps, context: SpawnContext, outcome: string, reason: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const rows = await tx.update(atlasSpawns).set({ status: 'lost', outcome, reason, endedAt: new Date() })
      .where(sql`${atlasSpawns.id} = ${context.spawn.id}::uuid and ${atlasSpawns.status} = 'running'`).returning({ id: atlasSpawns.id })
    if (rows.length === 0) return
    await setInbox(tx, context.message.id, 'classified', { reason })
    await recordAtlasAudit(tx, { messageId: context.message.id, action: 'spawn_failed', actor: deps.actor, details: { reason: outcome, spawnId: context.spawn.id, detail: reason } })
  })
}

async function escalate(deps: WorkerDeps, context: SpawnContext, reason: string, details: { contract?: ResultContract | null, errors?: QaError[], outcome: string }): Promise<Finished> {
  const { db } = deps
  const { spawn, message } = context
  const mailed = await sendTeamMail(deps.mail, escalationMail(message, reason, { contract: details.contract, errors: details.errors, iterations: spawn.iteration }), { actor: deps.actor, messageId: message.id })
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, { status: 'succeeded', outcome: details.outcome, reason, endedAt: new Date() })
    await setInbox(tx, message.id, 'escalated', { reason, needsHuman: true })
    // A draft saying the request was handled would be untrue: any agent draft is discarded;
    // its text stays in this audit row and in the spawn's result contract.
    const discarded = await tx.update(atlasReplyDrafts).set({ status: 'discarded', updatedAt: new Date() })
      .where(and(eq(atlasReplyDrafts.messageId, message.id), eq(atlasReplyDrafts.status, 'draft'), eq(atlasReplyDrafts.createdBy, deps.actor))).returning({ id: atlasReplyDrafts.id })
    await recordAtlasAudit(tx, {
      messageId: message.id, action: 'escalated', actor: deps.actor,
      details: {
        spawnId: spawn.id, iteration: spawn.iteration, reason, errors: details.errors?.slice(0, 50), mail: mailed,
        replyDraftDiscarded: details.contract?.replyDraft ? clip(details.contract.replyDraft, 20_000) : null, discardedDraftIds: discarded.map(d => d.id),
      },
    })
  })
  deps.log(`[atlas-spawn-worker] message #${message.id}: escalated: ${reason}; team ${mailed}`)
  return { outcome: 'escalated', followUp: null }
}

async function deployAndQa(deps: WorkerDeps, context: SpawnContext, contract: ResultContract, checkout: string): Promise<Finished> {
  const { db, config } = deps
  const { spawn, message, tenant } = context
  if (!config.deployCommand) {
    return await escalate(deps, context, 'DEPLOY_COMMAND is not set: a chantier cannot be deployed to pre-production', { contract, outcome: 'escalated' })
  }
  await setInbox(db, message.id, 'deploying')
  let errors: QaError[] = []
  let qaReport: QaReport | null = null
  try {
    const deploy = await runDeploy({
      command: config.deployCommand, tenantSlug: tenant?.slug ?? null, messageId: message.id, spawnId: spawn.id,
      cwd: checkout, timeoutMs: config.deployTimeoutMs, graceMs: config.killGraceMs, env: deps.env, signal: deps.signal,
    })
    await updateSpawn(db, spawn.id, { deploy: { ok: deploy.ok, command: deploy.command, exitCode: deploy.exitCode, signal: deploy.signal, timedOut: deploy.timedOut, durationMs: deploy.durationMs, outputTail: deploy.outputTail } })
    await recordAtlasAudit(db, {
      messageId: message.id, action: 'deployed', actor: deps.actor,
      details: { spawnId: spawn.id, iteration: spawn.iteration, ok: deploy.ok, command: deploy.command, exitCode: deploy.exitCode, signal: deploy.signal, timedOut: deploy.timedOut, durationMs: deploy.durationMs },
    })
    if (!deploy.ok) {
      errors = [{ kind: 'deploy', route: '(deploy)', message: `${deploy.timedOut ? `the deploy did not finish within ${Math.round(config.deployTimeoutMs / 1000)} s` : `the deploy exited with code ${deploy.exitCode ?? deploy.signal}`}: ${clip(deploy.outputTail.trim().split('\n').slice(-15).join('\n'), 2000)}` }]
    }
  }
  catch (error) {
    return await escalate(deps, context, `the deploy could not run: ${(error as Error).message}`, { contract, outcome: 'escalated' })
  }
  if (errors.length === 0) {
    await setInbox(db, message.id, 'qa')
    try {
      qaReport = await runQa(contract.routes, {
        baseUrl: tenant?.preprodUrl ?? config.qaBaseUrl ?? null,
        navigationTimeoutMs: config.qaNavigationTimeoutMs,
        settleMs: config.qaSettleMs,
        launch: deps.launchBrowser ?? (() => launchChromium(config.chromiumPath)),
      })
    }
    catch (error) {
      const reason = error instanceof QaConfigError ? `QA cannot run: ${error.message}` : `QA could not run: ${(error as Error).message.split('\n')[0]}`
      return await escalate(deps, context, reason, { contract, outcome: 'escalated' })
    }
    await updateSpawn(db, spawn.id, { qa: qaReport as unknown as Record<string, unknown> })
    errors = qaReport.errors
    if (errors.length === 0) {
      await recordAtlasAudit(db, { messageId: message.id, action: 'qa_passed', actor: deps.actor, details: { spawnId: spawn.id, iteration: spawn.iteration, routes: qaReport.routes.map(r => r.route), findings: qaReport.findings.slice(0, 50) } })
    }
  }
  if (errors.length === 0) {
    const qaText = `passed on ${qaReport?.routes.length ?? 0} route(s)${qaReport?.note ? ` (${qaReport.note})` : ''}`
    const mailed = await sendTeamMail(deps.mail, summaryMail(message, contract, { intent: 'chantier', qa: qaText }), { actor: deps.actor, messageId: message.id })
    await db.transaction(async (tx) => {
      await updateSpawn(tx, spawn.id, { status: 'succeeded', outcome: 'actioned', endedAt: new Date(), reason: `QA ${qaText}; summary ${mailed}` })
      await setInbox(tx, message.id, 'actioned')
      await recordActioned(tx, deps, context, contract, { intent: 'chantier', qa: qaText, summary: mailed })
    })
    deps.log(`[atlas-spawn-worker] message #${message.id}: deployed, QA ${qaText}, actioned; summary ${mailed}`)
    return { outcome: 'actioned', followUp: null }
  }

  await recordAtlasAudit(db, { messageId: message.id, action: 'qa_failed', actor: deps.actor, details: { spawnId: spawn.id, iteration: spawn.iteration, errors: errors.slice(0, 50), findings: qaReport?.findings.slice(0, 50) ?? [] } })
  if (spawn.iteration >= config.maxIterations) {
    return await escalate(deps, context, `QA still failing after ${spawn.iteration} iteration(s)`, { contract, errors, outcome: 'escalated' })
  }
  const next = spawn.iteration + 1
  const nextId = await db.transaction(async (tx) => {
    const closed = await updateSpawn(tx, spawn.id, { status: 'succeeded', outcome: 'qa_failed', endedAt: new Date(), reason: `${errors.length} QA error(s); re-spawned` })
    if (!closed) return null
    const [row] = await tx.insert(atlasSpawns).values({
      messageId: message.id, iteration: next, previousSpawnId: spawn.id, status: 'queued', queuedBy: deps.actor, carriedErrors: errors.slice(0, 50),
    }).returning({ id: atlasSpawns.id })
    await setInbox(tx, message.id, 'spawn_queued', { reason: `QA failed (${errors.length} error(s)); re-spawn ${next} of ${config.maxIterations}` })
    await recordAtlasAudit(tx, { messageId: message.id, action: 'respawn', actor: deps.actor, details: { fromSpawnId: spawn.id, spawnId: row!.id, iteration: next, errors: errors.length } })
    return row!.id
  })
  deps.log(`[atlas-spawn-worker] message #${message.id}: QA failed (${errors.length} error(s)); re-spawn ${next} queued`)
  return { outcome: 'qa_failed', followUp: nextId ? { spawnId: nextId, messageId: message.id, iteration: next } : null }
}
