// Runs and steps as rows: the engine's writes to agent_runs / agent_run_steps and the reads
// of the run page. The cost of a run is the ledger's (ai_consumption rows of its calls).
import { hostname } from 'node:os'
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentApprovals, agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import { STORED_OUTPUT_CHARS } from './vocabulary'

export type AgentRun = typeof agentRuns.$inferSelect
export type AgentRunStep = typeof agentRunSteps.$inferSelect
export type AgentApproval = typeof agentApprovals.$inferSelect
export type StepInsert = Omit<typeof agentRunSteps.$inferInsert, 'runId' | 'seq'>

/** The process that drives a run from now on (the sweeper fails runs whose process is gone). */
export function runner(): { runnerHost: string, runnerPid: number } {
  return { runnerHost: hostname(), runnerPid: process.pid }
}

export function truncate(text: string, max = STORED_OUTPUT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`
}

export async function insertRun(db: Db, values: typeof agentRuns.$inferInsert): Promise<AgentRun> {
  const [run] = await db.insert(agentRuns).values(values).returning()
  return run!
}

export async function updateRun(db: Db, id: string, patch: Partial<typeof agentRuns.$inferInsert>): Promise<void> {
  await db.update(agentRuns).set({ ...patch, updatedAt: new Date() }).where(eq(agentRuns.id, id))
}

/** Appends a step with the next sequence number of its run (one statement: no race on seq). */
export async function appendStep(db: Db, runId: string, step: StepInsert): Promise<AgentRunStep> {
  const [row] = await db.insert(agentRunSteps).values({
    ...step,
    runId,
    seq: sql`(select coalesce(max(seq), 0) + 1 from agent_run_steps where run_id = ${runId}::uuid)`,
  }).returning()
  return row!
}

export async function updateStep(db: Db, id: number, patch: Partial<typeof agentRunSteps.$inferInsert>): Promise<void> {
  await db.update(agentRunSteps).set(patch).where(eq(agentRunSteps.id, id))
}

export async function getRun(db: Db, id: string): Promise<AgentRun | null> {
  const [run] = await db.select().from(agentRuns).where(eq(agentRuns.id, id))
  return run ?? null
}

export async function runSteps(db: Db, runId: string): Promise<AgentRunStep[]> {
  return await db.select().from(agentRunSteps).where(eq(agentRunSteps.runId, runId)).orderBy(asc(agentRunSteps.seq))
}

export async function runApprovals(db: Db, runId: string): Promise<AgentApproval[]> {
  return await db.select().from(agentApprovals).where(eq(agentApprovals.runId, runId)).orderBy(asc(agentApprovals.requestedAt))
}

export async function pendingApprovals(db: Db, runId: string): Promise<AgentApproval[]> {
  return await db.select().from(agentApprovals).where(and(eq(agentApprovals.runId, runId), eq(agentApprovals.status, 'pending')))
}

/** The run's cost from the ledger: every attempt row of every model call of its steps. */
export async function ledgerCost(db: Db, runId: string): Promise<number> {
  const rows = await db.execute<{ cost: string | null }>(sql`
    select coalesce(sum(c.cost_usd), 0) as cost from ai_consumption c
    where c.call_id in (select call_id from agent_run_steps where run_id = ${runId}::uuid and call_id is not null)`)
  return Number(rows[0]?.cost ?? 0)
}
