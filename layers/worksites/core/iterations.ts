// Iterations (issue 16, Deliver 2): one row per step of a task, written by the spawn engine at
// the end of every spawn attempt of a task (the spawn's task_id): what the agent reasoned (its
// text), what it did (its tool calls and commits), what it observed (tool results, the result
// contract's summary, QA errors, the failure reason), and the outcome: pass (QA passed), done
// (actioned without QA), fail (anything else). Read by the task page, the skill detector
// (done/pass ones) and the debrief. Layer order: the spawn engine reads its own tables and hands
// the step over as plain data (layers/spawn/core/iteration.ts); this file reads no spawn table.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { iso } from './paging'
import type { IterationOutcome } from './vocabulary'

type Exec = Pick<Db, 'execute'>

const TEXT_CHARS = 4000

export interface Iteration {
  id: string
  taskId: string
  spawnId: string | null
  step: number
  reasoning: string
  action: string
  observation: string
  outcome: IterationOutcome
  agentCodename: string | null
  createdAt: string
}

/** One step of a task, as its writer tells it. */
export interface IterationInput {
  taskId: string
  spawnId: string
  reasoning: string
  action: string
  observation: string
  outcome: IterationOutcome
  agentCodename: string | null
}

const clip = (text: string) => (text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text)

/**
 * Writes one iteration under its task, the task's next step. Idempotent: one iteration per spawn
 * (a unique index); null when that spawn's iteration is already written.
 */
export async function recordIteration(
  db: Exec,
  input: IterationInput,
): Promise<{ taskId: string, step: number, outcome: IterationOutcome } | null> {
  const [row] = await db.execute<{ step: number }>(sql`
    insert into work_iterations (task_id, spawn_id, step, reasoning, action, observation, outcome, agent_codename)
    select ${input.taskId}::uuid, ${input.spawnId}::uuid, coalesce(max(step), 0) + 1, ${clip(input.reasoning)}, ${clip(input.action)}, ${clip(input.observation)}, ${input.outcome}, ${input.agentCodename}
    from work_iterations where task_id = ${input.taskId}::uuid
    on conflict (spawn_id) where spawn_id is not null do nothing
    returning step`)
  return row ? { taskId: input.taskId, step: row.step, outcome: input.outcome } : null
}

const SELECT = sql`select id, task_id as "taskId", spawn_id as "spawnId", step, reasoning, action, observation, outcome, agent_codename as "agentCodename", ${iso(sql`created_at`)} as "createdAt" from work_iterations`

export async function listIterations(db: Exec, taskId: string): Promise<Iteration[]> {
  return await db.execute<Record<string, unknown>>(sql`${SELECT} where task_id = ${taskId}::uuid order by step, created_at`) as unknown as Iteration[]
}

/** For the skill detector and the debrief: recent iterations with the given outcomes, newest first. */
export async function recentIterations(
  db: Exec,
  options: { outcomes: readonly IterationOutcome[], since: Date, limit: number },
): Promise<Iteration[]> {
  const outcomes = sql.join(
    options.outcomes.map(o => sql`${o}`),
    sql`, `,
  )
  return (await db.execute<Record<string, unknown>>(
    sql`${SELECT} where outcome in (${outcomes}) and created_at >= ${options.since.toISOString()}::timestamptz order by created_at desc limit ${options.limit}`,
  )) as unknown as Iteration[]
}

/**
 * The task a spawn of a message works on: the first open task (todo, in progress, review) of
 * the chantier the message drafted (the spawn engine names it), by job then board position;
 * null when there is none.
 */
export async function openTaskOf(db: Exec, chantierId: string): Promise<string | null> {
  const [row] = await db.execute<{ id: string }>(sql`
    select t.id from work_chantiers ch
      join work_tasks t on t.chantier_id = ch.id
      join work_jobs j on j.id = t.job_id
    where ch.id = ${chantierId}::uuid and ch.status in ('planned', 'active') and t.status in ('todo', 'in_progress', 'review')
    order by j.position, t.position, t.created_at
    limit 1`)
  return row?.id ?? null
}
