// How a spawn ends when it does not simply succeed, and the book-keeping of every end: the
// `actioned` record (with the agent's reply draft), the agents registry's counters for the
// routed agent, the failed spawn (reason, salvaged checkpoint, the team told), the abandoned
// one (the worker stopped), the escalation; a failure or an escalation leaves a scar.
import { and, eq, sql } from 'drizzle-orm'
import type { Tx } from '#db/client'
import { atlasReplyDrafts } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { clip } from './text'
import type { ResultContract } from './contract'
import { countInAgentsRegistry, type SpawnOutcomeKind } from './hooks'
import { escalationMail, failureMail, sendTeamMail } from './notify'
import type { QaError } from './prompts'
import { saveReplyDraft, withSignature } from './reply-draft'
import type { AgentRunOutcome } from './run-agent'
import { setInbox, updateSpawn, type SpawnContext } from './spawn-context'
import { learnFromOutcome } from './spawn-lessons'
import type { Finished, WorkerDeps } from './worker-deps'

/**
 * The message is actioned: the `actioned` audit, and the agent's reply draft kept (only now:
 * an escalated or failed message never shows a draft saying the request was handled).
 */
export async function recordActioned(
  tx: Tx,
  deps: WorkerDeps,
  context: SpawnContext,
  result: ResultContract,
  details: Record<string, unknown>,
): Promise<void> {
  const draft = result.replyDraft
    ? await saveReplyDraft(tx, {
        messageId: context.message.id,
        body: withSignature(clip(result.replyDraft, 20_000), deps.config.teamSignature),
        actor: deps.actor,
      })
    : null
  await deps.audit(tx, {
    messageId: context.message.id,
    action: 'actioned',
    actor: deps.actor,
    details: { spawnId: context.spawn.id, iteration: context.spawn.iteration, replyDraftId: draft?.id ?? null, ...details },
  })
}

/** The agents registry counts the routed agent's spawns; a failure there never fails the spawn. */
export async function tellAgentsRegistry(
  deps: WorkerDeps,
  context: SpawnContext,
  outcome: SpawnOutcomeKind,
  summary: string,
): Promise<void> {
  const report = deps.onSpawnFinished ?? countInAgentsRegistry(deps.db)
  const ref = `atlas#${context.message.id}/spawn/${context.spawn.id}`
  if (!context.agent) {
    deps.log(
      `[atlas-spawn-worker] ${ref}: no registry agent was routed (the roster is not seeded: run \`npm run db:migrate\`); no counter moved`,
    )
    return
  }
  try {
    await report({
      agentCodename: context.agent,
      outcome,
      ref,
      summary: `message #${context.message.id}, spawn ${context.spawn.iteration}: ${clip(summary, 300)}`,
    })
  }
  catch (error) {
    deps.log(`[atlas-spawn-worker] ${ref}: the agents registry was not updated (${(error as Error).message})`)
  }
}

export async function failSpawn(
  deps: WorkerDeps,
  context: SpawnContext,
  reason: string,
  agent: AgentRunOutcome,
  salvaged: ResultContract | null,
): Promise<Finished> {
  const { db } = deps
  const { spawn, message } = context
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, {
      status: 'failed',
      outcome: 'spawn_failed',
      reason,
      endedAt: new Date(),
      result: salvaged && agent.contract.ok ? agent.contract.raw : null,
      resultSource: salvaged ? 'checkpoint' : null,
    })
    await setInbox(tx, message.id, 'spawn_failed', { reason, needsHuman: true })
    await deps.audit(tx, {
      messageId: message.id,
      action: 'spawn_failed',
      actor: deps.actor,
      details: {
        spawnId: spawn.id,
        iteration: spawn.iteration,
        reason,
        timedOut: agent.timedOut,
        aborted: agent.aborted,
        exitCode: agent.agentExitCode,
        signal: agent.agentSignal,
        wrapperExitCode: agent.wrapperExitCode,
        events: agent.events,
        salvagedCheckpoint: salvaged ? { status: salvaged.status, summary: clip(salvaged.summary, 2000) } : null,
      },
    })
  })
  await tellAgentsRegistry(deps, context, 'failed', reason)
  await learnFromOutcome(deps, context, {
    kind: 'scar',
    reason,
    outcome: agent.timedOut ? 'timeout' : 'spawn_failed',
    summary: salvaged?.summary,
  })
  const mailed = await sendTeamMail(deps.mail, failureMail(message, reason, salvaged), { actor: deps.actor, messageId: message.id })
  deps.log(`[atlas-spawn-worker] message #${message.id}: spawn failed: ${reason}; team ${mailed}`)
  return { outcome: 'spawn_failed', followUp: null }
}

export async function abandon(deps: WorkerDeps, context: SpawnContext, outcome: string, reason: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const rows = await tx.update(atlasSpawns).set({ status: 'lost', outcome, reason, endedAt: new Date() })
      .where(sql`${atlasSpawns.id} = ${context.spawn.id}::uuid and ${atlasSpawns.status} = 'running'`).returning({ id: atlasSpawns.id })
    if (rows.length === 0) return
    await setInbox(tx, context.message.id, 'classified', { reason })
    await deps.audit(tx, { messageId: context.message.id, action: 'spawn_failed', actor: deps.actor, details: { reason: outcome, spawnId: context.spawn.id, detail: reason } })
  })
}

export async function escalate(
  deps: WorkerDeps,
  context: SpawnContext,
  reason: string,
  details: { contract?: ResultContract | null, errors?: QaError[], outcome: string },
): Promise<Finished> {
  const { db } = deps
  const { spawn, message } = context
  const mailed = await sendTeamMail(
    deps.mail,
    escalationMail(message, reason, { contract: details.contract, errors: details.errors, iterations: spawn.iteration }),
    { actor: deps.actor, messageId: message.id },
  )
  await db.transaction(async (tx) => {
    await updateSpawn(tx, spawn.id, { status: 'succeeded', outcome: details.outcome, reason, endedAt: new Date() })
    await setInbox(tx, message.id, 'escalated', { reason, needsHuman: true })
    // A draft saying the request was handled would be untrue: any agent draft is discarded;
    // its text stays in this audit row and in the spawn's result contract.
    const discarded = await tx
      .update(atlasReplyDrafts)
      .set({ status: 'discarded', updatedAt: new Date() })
      .where(
        and(eq(atlasReplyDrafts.messageId, message.id), eq(atlasReplyDrafts.status, 'draft'), eq(atlasReplyDrafts.createdBy, deps.actor)),
      )
      .returning({ id: atlasReplyDrafts.id })
    await deps.audit(tx, {
      messageId: message.id,
      action: 'escalated',
      actor: deps.actor,
      details: {
        spawnId: spawn.id,
        iteration: spawn.iteration,
        reason,
        errors: details.errors?.slice(0, 50),
        mail: mailed,
        replyDraftDiscarded: details.contract?.replyDraft ? clip(details.contract.replyDraft, 20_000) : null,
        discardedDraftIds: discarded.map(d => d.id),
      },
    })
  })
  await learnFromOutcome(deps, context, { kind: 'scar', reason, outcome: details.outcome, errors: details.errors })
  deps.log(`[atlas-spawn-worker] message #${message.id}: escalated: ${reason}; team ${mailed}`)
  return { outcome: 'escalated', followUp: null }
}
