// What a person does to a run: decide an approval (the run resumes once none is pending),
// undo a write from its snapshot, rerun (a new run linked to the old one).
import { and, eq, gt, isNull, lte, sql } from 'drizzle-orm'
import type { ChatMessage, ToolCall } from '#layers/ai/core/clients/types'
import { agentApprovals, agentRunSteps } from '#db/schema/agent-runs'
import { hubAudit } from '#db/schema/hub'
import type { RunContext } from './context'
import { EngineError } from './errors'
import { driveRun, startRun, type EngineDeps } from './loop'
import { getRun, pendingApprovals, runner, updateRun, updateStep, type AgentRun, type AgentRunStep } from './store'
import { executeTool } from './tool-call'
import { HUB_ROLE_RANK, type PersonRole } from './vocabulary'

export interface Person { email: string, role: PersonRole, id?: string | null }

const now = (deps: EngineDeps) => (deps.now ?? (() => new Date()))()

async function appendToConversation(deps: EngineDeps, runId: string, message: ChatMessage): Promise<void> {
  await deps.db.execute(sql`update agent_runs set conversation = conversation || ${JSON.stringify([message])}::jsonb, updated_at = now() where id = ${runId}::uuid`)
}

/**
 * Approve or deny a paused call. Only the person asked (or a founder) decides; an approval
 * past its 72 hours cannot be used: it is marked expired, the call refused, the run failed.
 */
export async function decideApproval(deps: EngineDeps, approvalId: string, decision: 'approve' | 'deny', person: Person, note?: string): Promise<AgentRun> {
  const [approval] = await deps.db.select().from(agentApprovals).where(eq(agentApprovals.id, approvalId))
  if (!approval) throw new EngineError('not_found', `no approval ${approvalId}`, 404)
  if (approval.askedOf !== person.email && person.role !== 'founder') throw new EngineError('not_asked', `this approval was asked of ${approval.askedOf}`, 403)
  if (approval.status !== 'pending') throw new EngineError('approval_not_pending', `this approval is ${approval.status}`, 409, { status: approval.status })
  const at = now(deps)
  const [step] = await deps.db.select().from(agentRunSteps).where(eq(agentRunSteps.id, approval.stepId))
  const call: ToolCall = {
    id: step!.toolCallId ?? String(step!.id),
    name: approval.tool,
    input: approval.payload,
    rawArguments: JSON.stringify(approval.payload),
  }
  if (approval.expiresAt.getTime() <= at.getTime()) {
    await deps.db.update(agentApprovals).set({ status: 'expired' }).where(and(eq(agentApprovals.id, approvalId), eq(agentApprovals.status, 'pending')))
    await updateStep(deps.db, step!.id, { status: 'expired', error: 'approval_expired: not decided within 72 hours' })
    await deps.db.insert(hubAudit).values({ actor: person.email, action: 'agent_approval_expired', target: approval.runId, details: { approvalId, tool: approval.tool } })
    await updateRun(deps.db, approval.runId, { status: 'failed', error: 'approval_expired', endedAt: at })
    throw new EngineError('approval_expired', 'this approval is older than 72 hours and can no longer be used', 409)
  }
  // One decision wins: the update is conditional on the approval still pending and unexpired.
  const [decided] = await deps.db.update(agentApprovals)
    .set({ status: decision === 'approve' ? 'approved' : 'denied', decidedAt: at, decidedBy: person.email, note: note ?? null })
    .where(and(eq(agentApprovals.id, approvalId), eq(agentApprovals.status, 'pending'), gt(agentApprovals.expiresAt, at))).returning()
  if (!decided) throw new EngineError('approval_not_pending', 'this approval was decided meanwhile', 409)
  await deps.db.insert(hubAudit).values({ actor: person.email, action: decision === 'approve' ? 'agent_approval_approved' : 'agent_approval_denied', target: approval.runId, details: { approvalId, tool: approval.tool, payload: approval.payload, note: note ?? null } })
  const run = (await getRun(deps.db, approval.runId))!
  const context = run.context as unknown as RunContext
  let message: ChatMessage
  if (decision === 'approve') {
    const tool = deps.registry.get(approval.tool)
    if (!tool) throw new EngineError('unknown_tool', `the tool ${approval.tool} no longer exists`, 409)
    // An MCP tool that changed (or was declassified) since it was asked for runs no more.
    if (tool.unclassified) throw new EngineError('unclassified_tool', `the tool ${approval.tool} has no class any more: a founder classifies it again first`, 409)
    message = await executeTool(deps, tool, call, approval.payload, step as AgentRunStep, { ports: deps.ports, actor: `agent-run:${run.id}:${context.actingUser.email}`, runId: run.id, owner: context.agent.ownerEmail, agent: context.agent.codename })
  }
  else {
    await updateStep(deps.db, step!.id, { status: 'rejected', error: `denied by ${person.email}${note ? `: ${note}` : ''}` })
    message = { role: 'tool', toolCallId: call.id, name: call.name, content: `Refused: ${person.email} denied this call${note ? ` (${note})` : ''}`, isError: true }
  }
  await appendToConversation(deps, run.id, message)
  if ((await pendingApprovals(deps.db, run.id)).length > 0) return (await getRun(deps.db, run.id))!
  await updateRun(deps.db, run.id, { status: 'running', ...runner() })
  return await driveRun(deps, run.id)
}

/**
 * Pending approvals past their 72 hours become `expired`, their steps too, and the runs that
 * waited on them fail (approval_expired): read before a run or the runs list is shown.
 */
export async function expireStaleApprovals(db: EngineDeps['db'], at: Date): Promise<number> {
  const expired = await db.update(agentApprovals).set({ status: 'expired' })
    .where(and(eq(agentApprovals.status, 'pending'), lte(agentApprovals.expiresAt, at))).returning({ runId: agentApprovals.runId, stepId: agentApprovals.stepId })
  for (const row of expired) {
    await db.update(agentRunSteps).set({ status: 'expired', error: 'approval_expired: not decided within 72 hours' }).where(eq(agentRunSteps.id, row.stepId))
    await db.execute(sql`update agent_runs set status = 'failed', error = 'approval_expired', ended_at = ${at.toISOString()}::timestamptz, updated_at = now() where id = ${row.runId}::uuid and status = 'awaiting_approval'`)
  }
  return expired.length
}

/** Applies a write's snapshot back (once); refused for a write that is not undoable. */
export async function undoWrite(deps: EngineDeps, runId: string, stepId: number, person: Person): Promise<AgentRunStep> {
  const [step] = await deps.db.select().from(agentRunSteps).where(and(eq(agentRunSteps.id, stepId), eq(agentRunSteps.runId, runId)))
  if (!step) throw new EngineError('not_found', `no step ${stepId} in run ${runId}`, 404)
  const write = step.write as { entity: string, id: string, snapshot: Record<string, unknown> | null, undoable: boolean } | null
  if (!write) throw new EngineError('not_a_write', 'this step wrote nothing', 400)
  if (!write.undoable) throw new EngineError('not_undoable', `${step.tool} is not undoable`, 409)
  if (step.undoneAt) throw new EngineError('already_undone', 'this write was already undone', 409)
  const tool = deps.registry.get(step.tool ?? '')
  if (!tool?.revert) throw new EngineError('not_undoable', `${step.tool} has no undo`, 409)
  const run = (await getRun(deps.db, runId))!
  if (run.actingEmail !== person.email && HUB_ROLE_RANK[person.role] < HUB_ROLE_RANK.founder) throw new EngineError('not_yours', 'only the person the run acted for (or a founder) undoes its writes', 403)
  try {
    await tool.revert(write, { ports: deps.ports, actor: person.email, runId })
  }
  catch (error) {
    throw new EngineError('undo_refused', (error as Error).message, 409)
  }
  const [undone] = await deps.db.update(agentRunSteps).set({ undoneAt: now(deps), undoneBy: person.email })
    .where(and(eq(agentRunSteps.id, stepId), isNull(agentRunSteps.undoneAt))).returning()
  await deps.db.insert(hubAudit).values({ actor: person.email, action: 'agent_write_undone', target: runId, details: { stepId, entity: write.entity, id: write.id } })
  return undone ?? step
}

/** A new run with the same context, linked to the old one (rerun_of), acting for the person asking. */
export async function rerun(deps: EngineDeps, runId: string, person: Person): Promise<AgentRun> {
  const run = await getRun(deps.db, runId)
  if (!run) throw new EngineError('not_found', `no run ${runId}`, 404)
  if (run.actingEmail !== person.email && person.role !== 'founder') throw new EngineError('not_yours', 'only the person the run acted for (or a founder) reruns it', 403)
  const context = run.context as unknown as RunContext
  return await startRun(deps, { ...context, trigger: 'rerun', rerunOf: run.id, actingUser: { id: person.id ?? null, email: person.email, role: person.role } })
}
