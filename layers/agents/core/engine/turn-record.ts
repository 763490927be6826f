// A turn's rows written together: the model step, its tool steps, the approvals they wait
// for, the run's counters and the conversation's new messages.
import { eq, sql } from 'drizzle-orm'
import type { ChatMessage } from '#layers/ai/core/clients/types'
import { agentApprovals, agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import { clock, type EngineDeps } from './engine-deps'
import type { AgentRun, StepInsert } from './store'
import { APPROVAL_TTL_MS } from './vocabulary'

export interface PendingApproval { agent: string, tool: string, payload: Record<string, unknown>, askedOf: string }

/**
 * A turn's rows in ONE transaction: the model step, its tool steps, the approvals they wait
 * for, the run's counters and conversation. An ordinary turn commits asynchronously
 * (synchronous_commit off: a crash may lose the last fraction of a second of run log, never
 * corrupt it, and the tools' own writes keep their durability) — waiting for the disk at
 * every step would cost more than the step itself. A turn that asks for an approval commits
 * durably: nobody must be left waiting on an approval the database forgot.
 */
export async function recordTurn(
  deps: EngineDeps,
  runId: string,
  steps: StepInsert[],
  approvals: Array<PendingApproval | null>,
  patch: Partial<AgentRun>,
  appended: ChatMessage[],
): Promise<void> {
  if (!approvals.some(Boolean)) {
    await deps.db.execute(turnStatement(runId, steps, patch, appended))
    return
  }
  const requestedAt = clock(deps)
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.execute<{ next: number }>(
      sql`select coalesce(max(seq), 0) + 1 as next from agent_run_steps where run_id = ${runId}::uuid`,
    )
    const next = Number(row!.next)
    const rows = await tx
      .insert(agentRunSteps)
      .values(steps.map((step, index) => ({ ...step, runId, seq: next + index })))
      .returning({ id: agentRunSteps.id, seq: agentRunSteps.seq })
    const idOfSeq = new Map(rows.map(inserted => [inserted.seq, inserted.id]))
    const asked = approvals.flatMap((approval, index) =>
      approval
        ? [
            {
              ...approval,
              runId,
              stepId: idOfSeq.get(next + index + 1)!,
              requestedAt,
              expiresAt: new Date(requestedAt.getTime() + APPROVAL_TTL_MS),
            },
          ]
        : [],
    )
    await tx.insert(agentApprovals).values(asked)
    await tx
      .update(agentRuns)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(agentRuns.id, runId))
  })
}

/** An ordinary turn as ONE statement (one round trip, atomic): its steps, the run's counters, an asynchronous commit. */
function turnStatement(runId: string, steps: StepInsert[], patch: Partial<AgentRun>, appended: ChatMessage[]) {
  const rows = JSON.stringify(
    steps.map((step, index) => ({
      kind: step.kind,
      thought: step.thought ?? null,
      tool: step.tool ?? null,
      tool_call_id: step.toolCallId ?? null,
      tool_class: step.toolClass ?? null,
      input: step.input ?? null,
      output: step.output ?? null,
      status: step.status,
      error: step.error ?? null,
      sources: step.sources ?? [],
      skills: step.skills ?? [],
      write: step.write ?? null,
      call_id: step.callId ?? null,
      provider: step.provider ?? null,
      model: step.model ?? null,
      tokens_in: step.tokensIn ?? 0,
      tokens_out: step.tokensOut ?? 0,
      duration_ms: step.durationMs ?? 0,
      position: index,
    })),
  )
  return sql`
    with async_commit as (select set_config('synchronous_commit', 'off', true) as value),
    base as (select coalesce(max(seq), 0) as seq from agent_run_steps where run_id = ${runId}::uuid),
    added as (
      insert into agent_run_steps (run_id, seq, kind, thought, tool, tool_call_id, tool_class, input, output, status, error, sources, skills, write, call_id, provider, model, tokens_in, tokens_out, duration_ms)
      select ${runId}::uuid, base.seq + 1 + r.position, r.kind, r.thought, r.tool, r.tool_call_id, r.tool_class, r.input, r.output, r.status, r.error, r.sources, r.skills, r.write, r.call_id, r.provider, r.model, r.tokens_in, r.tokens_out, r.duration_ms
      from base, jsonb_to_recordset(${rows}::jsonb) as r(kind text, thought text, tool text, tool_call_id text, tool_class text, input jsonb, output text, status text, error text, sources jsonb, skills jsonb, write jsonb, call_id uuid, provider text, model text, tokens_in int, tokens_out int, duration_ms int, position int)
      returning id),
    counted as (
      update agent_runs set iterations = ${patch.iterations!}, tokens_in = ${patch.tokensIn!}, tokens_out = ${patch.tokensOut!}, provider = ${patch.provider ?? null}, model = ${patch.model ?? null},
        conversation = conversation || ${JSON.stringify(appended)}::jsonb, updated_at = now()
      where id = ${runId}::uuid returning id)
    select (select value from async_commit) as commit_mode, (select count(*) from added) as steps, (select count(*) from counted) as runs`
}
