// A chantier after its agent: `deploying` (the client's named deploy command, else DEPLOY_COMMAND) → `qa` (browser QA of the
// contract's routes) → pass: summary → `actioned` and a victory; fail: a new spawn carrying
// the errors, at most SPAWN_MAX_ITERATIONS, then an escalation (and a scar).
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { clip } from './text'
import type { ResultContract } from './contract'
import { deployCommandFor } from '#layers/clients/core/deploy-commands'
import { runDeploy } from './deploy'
import { sendTeamMail, summaryMail } from './notify'
import { escalate, recordActioned } from './outcomes'
import type { QaError } from './prompts'
import { launchChromium, QaConfigError, runQa, type QaReport } from './qa'
import { setInbox, updateSpawn, type SpawnContext } from './spawn-context'
import { learnFromOutcome } from './spawn-lessons'
import type { Finished, WorkerDeps } from './worker-deps'
import { knownFailure } from './failure-words'

/** A stage either ends the spawn (an escalation) or hands its result to the next one. */
type Stage<T> = { ended: Finished } | { next: T }

/** The client's named deploy command, else DEPLOY_COMMAND; without one the chantier escalates. */
async function deployCommand(deps: WorkerDeps, context: SpawnContext, contract: ResultContract): Promise<Stage<string>> {
  const { config } = deps
  let command: string | undefined
  try {
    command = deployCommandFor({ fallback: config.deployCommand, named: config.deployCommands }, context.tenant?.deploy ?? null)
  }
  catch (error) {
    return { ended: await escalate(deps, context, `the client's deploy cannot run: ${(error as Error).message}`, { contract, outcome: 'escalated' }) }
  }
  if (!command) {
    return { ended: await escalate(deps, context, 'DEPLOY_COMMAND is not set: a chantier cannot be deployed to pre-production', { contract, outcome: 'escalated' }) }
  }
  return { next: command }
}

/** Deploys the checkout, recorded on the spawn and audited; a failed deploy is the one error QA is not run for. */
async function deploy(
  deps: WorkerDeps,
  context: SpawnContext,
  contract: ResultContract,
  command: string,
  checkout: string,
): Promise<Stage<QaError[]>> {
  const { db, config } = deps
  const { spawn, message, tenant } = context
  const deployName = tenant?.deploy ?? null
  await setInbox(db, message.id, 'deploying')
  try {
    const deployed = await runDeploy({
      command,
      tenantSlug: tenant?.slug ?? null,
      messageId: message.id,
      spawnId: spawn.id,
      cwd: checkout,
      timeoutMs: config.deployTimeoutMs,
      graceMs: config.killGraceMs,
      env: deps.env,
      signal: deps.signal,
    })
    await updateSpawn(db, spawn.id, {
      deploy: {
        ok: deployed.ok,
        command: deployed.command,
        exitCode: deployed.exitCode,
        signal: deployed.signal,
        timedOut: deployed.timedOut,
        durationMs: deployed.durationMs,
        outputTail: deployed.outputTail,
      },
    })
    await deps.audit(db, {
      messageId: message.id,
      action: 'deployed',
      actor: deps.actor,
      details: {
        spawnId: spawn.id,
        iteration: spawn.iteration,
        ok: deployed.ok,
        deploy: deployName ?? 'default',
        command: deployed.command,
        exitCode: deployed.exitCode,
        signal: deployed.signal,
        timedOut: deployed.timedOut,
        durationMs: deployed.durationMs,
      },
    })
    if (deployed.ok) return { next: [] }
    return {
      next: [
        {
          kind: 'deploy',
          route: '(deploy)',
          message: `${deployed.timedOut ? `the deploy did not finish within ${Math.round(config.deployTimeoutMs / 1000)} s` : `the deploy exited with code ${deployed.exitCode ?? deployed.signal}`}: ${clip(deployed.outputTail.trim().split('\n').slice(-15).join('\n'), 2000)}`,
        },
      ],
    }
  }
  catch (error) {
    return {
      ended: await escalate(
        deps,
        context,
        `the deploy could not run: ${knownFailure((error as Error).message) ?? (error as Error).message}`,
        { contract, outcome: 'escalated' },
      ),
    }
  }
}

/** Browser QA of the contract's routes on the pre-production, recorded on the spawn; a pass is audited. */
async function qa(deps: WorkerDeps, context: SpawnContext, contract: ResultContract): Promise<Stage<QaReport>> {
  const { db, config } = deps
  const { spawn, message, tenant } = context
  await setInbox(db, message.id, 'qa')
  let qaReport: QaReport
  try {
    qaReport = await runQa(contract.routes, {
      baseUrl: tenant?.preprodUrl ?? config.qaBaseUrl ?? null,
      navigationTimeoutMs: config.qaNavigationTimeoutMs,
      settleMs: config.qaSettleMs,
      launch: deps.launchBrowser ?? (() => launchChromium(config.chromiumPath)),
    })
  }
  catch (error) {
    const said = (error as Error).message.split('\n')[0]!
    const reason = error instanceof QaConfigError ? `QA cannot run: ${error.message}` : `QA could not run: ${knownFailure(said, 'the pre-production address') ?? said}`
    return { ended: await escalate(deps, context, reason, { contract, outcome: 'escalated' }) }
  }
  await updateSpawn(db, spawn.id, { qa: qaReport as unknown as Record<string, unknown> })
  if (qaReport.errors.length === 0) {
    await deps.audit(db, { messageId: message.id, action: 'qa_passed', actor: deps.actor, details: { spawnId: spawn.id, iteration: spawn.iteration, routes: qaReport.routes.map(r => r.route), findings: qaReport.findings.slice(0, 50) } })
  }
  return { next: qaReport }
}

/** QA passed: the summary to the team, the message actioned, a victory learnt. */
async function actionPassed(
  deps: WorkerDeps,
  context: SpawnContext,
  contract: ResultContract,
  qaReport: QaReport | null,
): Promise<Finished> {
  const { db } = deps
  const { spawn, message } = context
  const qaText = `passed on ${qaReport?.routes.length ?? 0} route(s)${qaReport?.note ? ` (${qaReport.note})` : ''}`
  const mailed = await sendTeamMail(deps.mail, summaryMail(message, contract, { intent: 'chantier', qa: qaText }), {
    actor: deps.actor,
    messageId: message.id,
  })
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, {
      status: 'succeeded',
      outcome: 'actioned',
      endedAt: new Date(),
      reason: `QA ${qaText}; summary ${mailed}`,
    })
    await setInbox(tx, message.id, 'actioned')
    await recordActioned(tx, deps, context, contract, { intent: 'chantier', qa: qaText, summary: mailed })
  })
  await learnFromOutcome(deps, context, { kind: 'victory', reason: `QA ${qaText}`, outcome: 'qa_passed', summary: contract.summary })
  deps.log(`[atlas-spawn-worker] message #${message.id}: deployed, QA ${qaText}, actioned; summary ${mailed}`)
  return { outcome: 'actioned', followUp: null }
}

/** QA failed: a new spawn carrying the errors, or an escalation once the iterations are spent. */
async function respawnOrEscalate(
  deps: WorkerDeps,
  context: SpawnContext,
  contract: ResultContract,
  errors: QaError[],
  qaReport: QaReport | null,
): Promise<Finished> {
  const { db, config } = deps
  const { spawn, message } = context
  await deps.audit(db, {
    messageId: message.id,
    action: 'qa_failed',
    actor: deps.actor,
    details: {
      spawnId: spawn.id,
      iteration: spawn.iteration,
      errors: errors.slice(0, 50),
      findings: qaReport?.findings.slice(0, 50) ?? [],
    },
  })
  if (spawn.iteration >= config.maxIterations) {
    return await escalate(deps, context, `QA still failing after ${spawn.iteration} iteration(s)`, {
      contract,
      errors,
      outcome: 'escalated',
    })
  }
  const next = spawn.iteration + 1
  const nextId = await db.transaction(async (tx) => {
    const closed = await updateSpawn(tx, spawn.id, {
      status: 'succeeded',
      outcome: 'qa_failed',
      endedAt: new Date(),
      reason: `${errors.length} QA error(s); re-spawned`,
    })
    if (!closed) return null
    const [row] = await tx
      .insert(atlasSpawns)
      .values({
        messageId: message.id,
        iteration: next,
        previousSpawnId: spawn.id,
        status: 'queued',
        queuedBy: deps.actor,
        carriedErrors: errors.slice(0, 50),
        taskId: spawn.taskId,
      })
      .returning({ id: atlasSpawns.id })
    await setInbox(tx, message.id, 'spawn_queued', {
      reason: `QA failed (${errors.length} error(s)); re-spawn ${next} of ${config.maxIterations}`,
    })
    await deps.audit(tx, {
      messageId: message.id,
      action: 'respawn',
      actor: deps.actor,
      details: { fromSpawnId: spawn.id, spawnId: row!.id, iteration: next, errors: errors.length },
    })
    return row!.id
  })
  deps.log(`[atlas-spawn-worker] message #${message.id}: QA failed (${errors.length} error(s)); re-spawn ${next} queued`)
  return { outcome: 'qa_failed', followUp: nextId ? { spawnId: nextId, messageId: message.id, iteration: next } : null }
}

export async function deployAndQa(deps: WorkerDeps, context: SpawnContext, contract: ResultContract, checkout: string): Promise<Finished> {
  const command = await deployCommand(deps, context, contract)
  if ('ended' in command) return command.ended
  const deployed = await deploy(deps, context, contract, command.next, checkout)
  if ('ended' in deployed) return deployed.ended
  let errors = deployed.next
  let qaReport: QaReport | null = null
  if (errors.length === 0) {
    const checked = await qa(deps, context, contract)
    if ('ended' in checked) return checked.ended
    qaReport = checked.next
    errors = qaReport.errors
  }
  if (errors.length === 0) return await actionPassed(deps, context, contract, qaReport)
  return await respawnOrEscalate(deps, context, contract, errors, qaReport)
}
