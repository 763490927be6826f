// A claimed spawn's run: routed and briefed (spawn-briefing.ts), the agent's presence on the
// reactor (agent-presence.ts), its workspace, its key injector (key-injector.ts: the only way
// the model key leaves the worker, closed when the agent ends), the agent in its
// pseudo-terminal with its events stored live, its figures, then the result contract read
// and the run handed on:
//   no-code intent (question, negociation, run, or a downgrade to one) → summary → `actioned`;
//   chantier → deploy-qa.ts; a killed or failed agent → outcomes.ts (failSpawn).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { routeAgent } from '#layers/agents/core/routing'
import { jobExpirySeconds } from './config'
import { startPresence } from './agent-presence'
import { deployAndQa } from './deploy-qa'
import { createEventSink } from './events'
import { recordSpawnConsumption } from './hooks'
import { sendTeamMail, summaryMail } from './notify'
import { agentBinaryProblem, agentFailureReason, agentNotStarted } from './failure-words'
import { abandon, escalate, failSpawn, recordActioned, tellAgentsRegistry } from './outcomes'
import { buildSystemPrompt, buildUserPrompt, type QaError } from './prompts'
import type { SpawnJob } from './queue'
import { startSpawnKeyInjector } from './key-injector'
import { prepareSpawnMcp, type SpawnMcp } from './spawn-mcp'
import { runAgent, spawnPaths, type AgentRunInput, type AgentRunOutcome } from './run-agent'
import { agentEnvironment, sandboxPolicy, writeSandboxPolicy } from './sandbox'
import { assembleSpawnBriefing, promptDomainOf, recordSpawnBriefing, type SpawnBriefing } from './spawn-briefing'
import { setInbox, updateSpawn, type SpawnContext } from './spawn-context'
import { memoryOf } from './spawn-memory'
import type { Finished, WorkerDeps } from './worker-deps'
import { findBinary } from './wrapper-args'
import { disposeWorkspace, keepWorkspace, prepareWorkspace, type Workspace } from './workspace'
import { spawnUserFor, type SpawnUser } from './spawn-user'

export async function spawnAndFinish(
  deps: WorkerDeps,
  context: SpawnContext,
  job: SpawnJob,
  leaseLost: AbortSignal,
  claimedAt: number,
): Promise<Finished> {
  const { config } = deps
  const briefing = await briefSpawn(deps, context)
  const presence = startPresence({ db: deps.db, log: deps.log, heartbeatMs: config.heartbeatMs }, context.agent, {
    id: context.spawn.id,
    messageId: context.message.id,
    iteration: context.spawn.iteration,
  })
  let finished: Finished | null = null
  try {
    const owner = await spawnUserFor(deps, context.spawn.id)
    // A workspace that could not be prepared was removed (or never given away).
    let disposed: 'kept' | 'removed' = 'removed'
    try {
      const workspace = await prepareWorkspace({
        root: config.spawnRoot,
        spawnId: context.spawn.id,
        repository: context.tenant?.repository ?? config.defaultRepository ?? null,
        branch: context.tenant?.branch ?? null,
        owner: owner.user,
      })
      // Until disposeWorkspace says otherwise (it may throw).
      disposed = 'kept'
      try {
        finished = await spawnInWorkspace(deps, context, leaseLost, claimedAt, workspace, owner, briefing)
        return finished
      }
      finally {
        await owner.handBack(workspace)
        disposed = disposeWorkspace(workspace, keepWorkspace(config.keepWorkdir, finished?.outcome !== 'actioned'))
        if (disposed === 'kept')
          deps.log(`[atlas-spawn-worker] message #${context.message.id}: the spawn's folder is kept as evidence: ${workspace.dir}`)
      }
    }
    finally {
      await owner.end(disposed)
    }
  }
  finally {
    await presence.end(finished?.outcome ?? 'engine_error')
  }
}

/**
 * Routes the spawn and assembles its briefing (spawn-briefing.ts), recorded on the spawn.
 * A re-spawn is briefed afresh: the same agent (same domain), its lessons recalled again.
 * A briefing that cannot be assembled (the database or the reflex folder unreadable) leaves
 * the spawn unbriefed but still routed, and says so: the request is worth more than its briefing.
 */
async function briefSpawn(deps: WorkerDeps, context: SpawnContext): Promise<{ codename: string, text: string } | null> {
  const { config } = deps
  const request = `${context.message.subject}\n${context.message.textBody}`
  let assembled: SpawnBriefing
  try {
    assembled = await assembleSpawnBriefing(
      {
        db: deps.db,
        embedder: memoryOf(deps).embedderFor(context.tenant?.slug ?? null),
        reflexDir: config.reflexDir,
        budget: config.briefingBudget,
        lessons: config.briefingLessons,
        log: deps.log,
      },
      { intent: context.inbox.intent, tenantId: context.tenant?.id ?? null, taskId: context.spawn.taskId, request },
    )
  }
  catch (error) {
    deps.log(`[atlas-spawn-worker] message #${context.message.id}: the briefing could not be assembled (${(error as Error).message}); the spawn goes unbriefed`)
    const domain = promptDomainOf(context.inbox.intent)
    assembled = { domain, agent: await routeAgent(deps.db, domain), briefing: null, lessons: [] }
  }
  context.agent = assembled.agent?.codename ?? null
  await recordSpawnBriefing(deps.db, context.spawn.id, assembled, deps.log)
  if (assembled.agent?.fallback) deps.log(`[atlas-spawn-worker] message #${context.message.id}: no active agent serves the domain "${assembled.domain}"; routed to the fallback agent ${assembled.agent.codename}`)
  return assembled.briefing && assembled.agent ? { codename: assembled.agent.codename, text: assembled.briefing.text } : null
}

/** runAgent, stopped when the job expires, the lease is lost or the worker stops. */
async function runStoppable(deps: WorkerDeps, leaseLost: AbortSignal, input: Omit<AgentRunInput, 'signal'>): Promise<AgentRunOutcome> {
  const { config } = deps
  // The job's expiry is the backstop: past it, the worker stops the agent's whole group.
  const stop = new AbortController()
  const expiry = setTimeout(() => stop.abort(new Error(`the job expired (${jobExpirySeconds(config)} s)`)), Math.max(1000, jobExpirySeconds(config) * 1000 - 5_000))
  const onLost = () => stop.abort(new Error('the message lease was lost (another process took it over)'))
  const onStop = () => stop.abort(new Error('the worker is stopping'))
  leaseLost.addEventListener('abort', onLost, { once: true })
  deps.signal?.addEventListener('abort', onStop, { once: true })
  if (deps.signal?.aborted) onStop()
  try {
    return await runAgent({ ...input, signal: stop.signal })
  }
  finally {
    clearTimeout(expiry)
    leaseLost.removeEventListener('abort', onLost)
    deps.signal?.removeEventListener('abort', onStop)
  }
}

type Briefing = { codename: string, text: string } | null
type Paths = ReturnType<typeof spawnPaths> & { resultFile: string }

/** The user prompt (the message, its classification, the previous attempt's) and the system prompt. */
function spawnPrompts(deps: WorkerDeps, context: SpawnContext, paths: Paths, workspace: Workspace, briefing: Briefing) {
  const { config } = deps
  const { spawn, message } = context
  const intent = context.inbox.intent ?? 'run'
  const previousContract = (context.previous?.result ?? null) as {
    commits?: Array<{ sha: string, message: string }>
    summary?: string
  } | null
  const prompt = buildUserPrompt({
    message: {
      id: message.id,
      fromAddress: message.fromAddress,
      fromName: message.fromName,
      subject: message.subject,
      textBody: message.textBody,
      receivedAt: message.receivedAt,
    },
    tenant: context.tenant,
    classification: { intent, confidence: context.inbox.confidence, model: context.inbox.model, reasoning: context.inbox.reasoning },
    previous:
      spawn.iteration > 1
        ? {
            iteration: spawn.iteration,
            maxIterations: config.maxIterations,
            commits: previousContract?.commits ?? [],
            errors: (spawn.carriedErrors ?? []) as QaError[],
            summary: previousContract?.summary ?? null,
          }
        : undefined,
  })
  const systemPrompt = buildSystemPrompt({ resultFile: paths.resultFile, workDir: workspace.workDir, tenant: context.tenant, briefing })
  return { prompt, systemPrompt }
}

interface AgentLaunch {
  leaseLost: AbortSignal
  claimedAt: number
  workspace: Workspace
  owner: SpawnUser
  paths: Paths
  logPath: string
  prompt: string
  systemPrompt: string
}

/**
 * Runs the agent confined: the model key behind its injector, the MCP servers it is allowed,
 * the sandbox policy written for the wrapper. Whatever happens, the placeholders and the MCP
 * configuration are gone once it ends.
 */
async function runConfinedAgent(deps: WorkerDeps, context: SpawnContext, launch: AgentLaunch): Promise<AgentRunOutcome> {
  const { db, config } = deps
  const { spawn, message } = context
  const { workspace, paths, logPath, prompt } = launch
  const injector = await startSpawnKeyInjector(deps.env, config.credentialEnv, deps.log, `spawn ${spawn.id}`)
  let mcp: SpawnMcp | null = null
  try {
    const model = injector && { url: injector.url, credential: injector.placeholder }
    const agentEnv = agentEnvironment(deps.env, config, workspace, { SYNEDRE_MESSAGE_ID: String(message.id), SYNEDRE_TENANT: context.tenant?.slug ?? '' }, model)
    mcp = await prepareSpawnMcp({ db, port: deps.mcpServers, agent: context.agent, tenant: context.tenant ? { id: context.tenant.id, slug: context.tenant.slug } : null, spawnDir: workspace.dir, env: deps.env, agentEnv, permissionMode: config.permissionMode, log: deps.log, label: `spawn ${spawn.id}` })
    const policy = sandboxPolicy(config, workspace, {
      agentBin: findBinary(config.agentBin, agentEnv),
      user: launch.owner.user,
      modelHost: injector?.host ?? null,
      mcp,
    })
    const sandboxFile = writeSandboxPolicy(workspace, policy)
    await updateSpawn(db, spawn.id, { prompt, logPath })
    return await runStoppable(deps, launch.leaseLost, {
      spawnId: spawn.id,
      prompt,
      systemPrompt: launch.systemPrompt,
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
      mcp: mcp.run,
      sink: createEventSink(db, { spawnId: spawn.id, messageId: message.id }, { log: deps.log }),
      onAgentStarted: (started) => {
        deps.onTiming?.({ spawnId: spawn.id, claimedAt: launch.claimedAt, agentStartedAt: performance.now() })
        void updateSpawn(db, spawn.id, { agentPid: started.pid, agentStartedAt: started.at })
      },
      log: deps.log,
    })
  }
  finally {
    // On every path (an error, a kill): the placeholders are worthless from here on, and the
    // MCP configuration (a stdio server's variables) is gone from the spawn's folder.
    await injector?.close()
    await mcp?.close()
  }
}

/** The agent's figures on the spawn (end, exit code, cost, tokens, duration, turns). */
async function recordAgentFigures(deps: WorkerDeps, context: SpawnContext, agent: AgentRunOutcome): Promise<void> {
  const figures = agent.result
  await updateSpawn(deps.db, context.spawn.id, {
    agentEndedAt: new Date(),
    wrapperExitCode: agent.wrapperExitCode,
    costUsd: figures?.costUsd ?? null,
    tokensIn: figures?.tokensIn ?? null,
    tokensOut: figures?.tokensOut ?? null,
    durationMs: figures?.durationMs ?? null,
    numTurns: figures?.numTurns ?? null,
  })
}

/** The AI ledger's row for the agent's consumption, when the stream carried its figures. */
async function recordAgentConsumption(deps: WorkerDeps, context: SpawnContext, agent: AgentRunOutcome, killed: boolean): Promise<void> {
  const { spawn } = context
  const figures = agent.result
  if (!figures) return
  await recordSpawnConsumption(deps.db, {
    spawnId: spawn.id,
    figures,
    modelRequested: deps.config.model,
    tenant: context.tenant?.slug ?? null,
    actor: deps.actor,
    iteration: spawn.iteration,
    ok: !figures.isError && !killed,
    error: figures.isError ? figures.errors.join('; ') || figures.subtype : killed ? 'killed' : null,
  }).catch(error => deps.log(`[spawn ${spawn.id}] the AI ledger row was not written: ${(error as Error).message}`))
}

type ResultContract = Extract<AgentRunOutcome['contract'], { ok: true }>

/** A valid result: kept on the spawn, audited, told to the agents' registry. */
async function recordCompletion(deps: WorkerDeps, context: SpawnContext, agent: AgentRunOutcome, contract: ResultContract): Promise<void> {
  const { db, config } = deps
  const { spawn, message } = context
  const result = contract.contract
  const figures = agent.result
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, { result: contract.raw, resultSource: 'file' })
    await deps.audit(tx, {
      messageId: message.id,
      action: 'spawn_completed',
      actor: deps.actor,
      details: {
        spawnId: spawn.id,
        iteration: spawn.iteration,
        status: result.status,
        commits: result.commits,
        routes: result.routes,
        intentCorrection: result.intentCorrection,
        refusedCorrection: result.refusedCorrection ?? undefined,
        events: agent.events,
        exitCode: agent.agentExitCode,
        signal: agent.agentSignal,
        costUsd: figures?.costUsd ?? null,
        sandbox: config.sandbox,
        stream: figures ? undefined : 'no result event reached the stream (the terminal may drop the last output); the result file decided',
      },
    })
  })
  await tellAgentsRegistry(deps, context, 'completed', `status ${result.status}`)
}

/** What a successful agent's result leads to: escalation, a summary mail (actioned), or a chantier's deploy and QA. */
async function followResult(deps: WorkerDeps, context: SpawnContext, result: ResultContract['contract'], workDir: string): Promise<Finished> {
  const { db } = deps
  const { spawn, message } = context
  const intent = context.inbox.intent ?? 'run'
  if (!result.ok) {
    return await escalate(deps, context, `the agent ended with status "${result.status}"`, { contract: result, outcome: 'escalated' })
  }
  const finalIntent = result.intentCorrection?.intent ?? intent
  if (finalIntent !== 'chantier') {
    const mailed = await sendTeamMail(deps.mail, summaryMail(message, result, { intent: finalIntent }), {
      actor: deps.actor,
      messageId: message.id,
    })
    await db.transaction(async (tx) => {
      await updateSpawn(tx, spawn.id, { status: 'succeeded', outcome: 'actioned', endedAt: new Date(), reason: `summary ${mailed}` })
      await setInbox(tx, message.id, 'actioned', { reason: result.intentCorrection ? `intent corrected by the agent: ${intent} → ${finalIntent}` : null, intent: result.intentCorrection ? finalIntent : undefined })
      await recordActioned(tx, deps, context, result, { intent: finalIntent, summary: mailed })
    })
    deps.log(`[atlas-spawn-worker] message #${message.id}: actioned (${finalIntent}); summary ${mailed}`)
    return { outcome: 'actioned', followUp: null }
  }
  return await deployAndQa(deps, context, result, workDir)
}

async function spawnInWorkspace(
  deps: WorkerDeps,
  context: SpawnContext,
  leaseLost: AbortSignal,
  claimedAt: number,
  workspace: Workspace,
  owner: SpawnUser,
  briefing: Briefing,
): Promise<Finished> {
  const { db, config } = deps
  const { spawn } = context
  const paths = { ...spawnPaths(config.tmpDir, spawn.id), resultFile: workspace.resultFile }
  // The worker's alone (a new folder): the wrapper, outside the sandbox, writes the logs.
  mkdirSync(config.logDir, { recursive: true, mode: 0o700 })
  const logPath = join(config.logDir, `spawn-${spawn.id}.jsonl`)
  const { prompt, systemPrompt } = spawnPrompts(deps, context, paths, workspace, briefing)
  // A missing agent CLI is said as such before anything starts (not as an exit code later).
  const missing = agentBinaryProblem(config.agentBin, { PATH: agentEnvironment(deps.env, config, workspace, {}, null).PATH })
  if (missing) {
    await updateSpawn(db, spawn.id, { prompt, logPath })
    return await failSpawn(deps, context, missing, agentNotStarted(missing), null)
  }
  const agent = await runConfinedAgent(deps, context, { leaseLost, claimedAt, workspace, owner, paths, logPath, prompt, systemPrompt })
  // Every process of the agent is gone (runAgent stopped them): the folder back to the worker
  // before it reads the result further, deploys from the checkout, or keeps it.
  await owner.handBack(workspace)
  await recordAgentFigures(deps, context, agent)

  // The lease was lost: recovery owns the message now; we only stopped our processes.
  if (leaseLost.aborted) return { outcome: 'lease_lost', followUp: null }
  // The worker is stopping: the message goes back to be spawned again.
  if (deps.signal?.aborted && agent.aborted) {
    await abandon(
      deps,
      context,
      'worker_stopped',
      `the worker ${deps.host}:${deps.pid} stopped during the spawn; the message is spawnable again`,
    )
    return { outcome: 'worker_stopped', followUp: null }
  }

  const contract = agent.contract
  const killed = agent.timedOut || agent.aborted !== null
  await recordAgentConsumption(deps, context, agent, killed)

  // An agent killed or ended in error (a result with is_error, a non-zero exit) fails the
  // spawn even with a valid result file: that file is then only its last checkpoint.
  const agentFailed = agent.wrapperExitCode !== 0
  if (killed || agentFailed || !contract.ok) {
    const reason = agentFailureReason(agent, config)
    const salvaged = contract.ok ? contract.contract : null
    return await failSpawn(deps, context, reason, agent, salvaged)
  }
  await recordCompletion(deps, context, agent, contract)
  return await followResult(deps, context, contract.contract, workspace.workDir)
}
