// Iterations (issue 16, Deliver 2): one row per step of a task, written by the spawn engine at
// the end of every spawn attempt of a task (the spawn's task_id): what the agent reasoned (its
// text), what it did (its tool calls and commits), what it observed (tool results, the result
// contract's summary, QA errors, the failure reason), and the outcome: pass (QA passed), done
// (actioned without QA), fail (anything else). Read by the task page, the skill detector
// (done/pass ones) and the debrief. Layer order: this file reads the spawn tables through the
// db layer only; the atlas engine calls it, never the other way round.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { Iteration } from '../shared/api'
import { iso } from './paging'
import type { IterationOutcome } from './vocabulary'

type Exec = Pick<Db, 'execute'>
const TEXT_CHARS = 4000

interface SpawnEnd {
  id: string
  task_id: string | null
  status: string
  outcome: string | null
  reason: string | null
  result: { summary?: string, status?: string, commits?: Array<{ sha?: string, message?: string }> } | null
  qa: { errors?: Array<{ route?: string, message?: string }>, routes?: unknown[] } | null
  agent_codename: string | null
}

export function iterationOutcome(spawn: Pick<SpawnEnd, 'outcome' | 'qa'>): IterationOutcome {
  if (spawn.outcome !== 'actioned') return 'fail'
  return spawn.qa ? 'pass' : 'done'
}

const clip = (text: string) => (text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text)
const parse = <T>(value: unknown): T | null => (typeof value === 'string' ? JSON.parse(value) as T : (value as T | null) ?? null)

/** Reasoning, action and observation from the spawn's stored events and its result. */
async function readSteps(db: Exec, spawn: SpawnEnd): Promise<{ reasoning: string, action: string, observation: string }> {
  const events = await db.execute<{ event_type: string, tool_name: string | null, payload: unknown }>(sql`
    select event_type, tool_name, payload from atlas_spawn_events where spawn_id = ${spawn.id}::uuid and event_type in ('assistant', 'tool_result') order by seq limit 2000`)
  const thoughts: string[] = []
  const tools: string[] = []
  const results: string[] = []
  for (const event of events) {
    const payload = parse<{ message?: { content?: Array<{ type?: string, text?: string, name?: string, content?: unknown }> } }>(event.payload)
    for (const block of payload?.message?.content ?? []) {
      if (event.event_type === 'assistant' && block.type === 'text' && block.text?.trim()) thoughts.push(block.text.trim())
      if (event.event_type === 'assistant' && block.type === 'tool_use' && block.name) tools.push(block.name)
      if (event.event_type === 'tool_result' && block.type === 'tool_result') {
        const text = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '')
        results.push(`${event.tool_name ?? 'tool'}: ${text.slice(0, 300)}`)
      }
    }
  }
  const result = parse<SpawnEnd['result']>(spawn.result)
  const qa = parse<SpawnEnd['qa']>(spawn.qa)
  const commits = (result?.commits ?? []).map(commit => `commit ${commit.sha?.slice(0, 10) ?? '?'} ${commit.message ?? ''}`.trim())
  const calls = [...tools.reduce((counts, name) => counts.set(name, (counts.get(name) ?? 0) + 1), new Map<string, number>())].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name))
  const observation = [
    result?.summary ? `Result (${result.status ?? 'no status'}): ${result.summary}` : null,
    qa ? (qa.errors?.length ? `QA: ${qa.errors.length} error(s): ${qa.errors.slice(0, 5).map(e => `${e.route ?? ''} ${e.message ?? ''}`.trim()).join('; ')}` : `QA passed on ${qa.routes?.length ?? 0} route(s)`) : null,
    spawn.outcome !== 'actioned' && spawn.reason ? `Ended ${spawn.outcome ?? spawn.status}: ${spawn.reason}` : null,
    results.length ? `Tool results: ${results.slice(-5).join(' | ')}` : null,
  ].filter(Boolean).join('\n')
  return {
    reasoning: clip(thoughts.join('\n\n')),
    action: clip([calls.length ? `Tools: ${calls.join(', ')}` : 'No tool call', ...commits].join('\n')),
    observation: clip(observation || `The spawn ended ${spawn.status}${spawn.outcome ? ` (${spawn.outcome})` : ''}.`),
  }
}

/**
 * Writes the iteration of a finished spawn attempt under its task (nothing when the spawn works
 * on no task). Idempotent: one iteration per spawn (a unique index), the step is the task's next.
 */
export async function recordSpawnIteration(db: Exec, spawnId: string): Promise<{ taskId: string, step: number, outcome: IterationOutcome } | null> {
  const [spawn] = await db.execute<SpawnEnd & Record<string, unknown>>(sql`
    select id, task_id, status, outcome, reason, result, qa, agent_codename from atlas_spawns where id = ${spawnId}::uuid`)
  // Only an ended attempt: a spawn still running (its lease was lost, recovery owns it) has no outcome yet.
  if (!spawn?.task_id || spawn.status === 'queued' || spawn.status === 'running') return null
  const steps = await readSteps(db, spawn)
  const outcome = iterationOutcome({ outcome: spawn.outcome, qa: parse(spawn.qa) })
  const [row] = await db.execute<{ step: number }>(sql`
    insert into work_iterations (task_id, spawn_id, step, reasoning, action, observation, outcome, agent_codename)
    select ${spawn.task_id}::uuid, ${spawn.id}::uuid, coalesce(max(step), 0) + 1, ${steps.reasoning}, ${steps.action}, ${steps.observation}, ${outcome}, ${spawn.agent_codename}
    from work_iterations where task_id = ${spawn.task_id}::uuid
    on conflict (spawn_id) where spawn_id is not null do nothing
    returning step`)
  return row ? { taskId: spawn.task_id, step: row.step, outcome } : null
}

const SELECT = sql`select id, task_id as "taskId", spawn_id as "spawnId", step, reasoning, action, observation, outcome, agent_codename as "agentCodename", ${iso(sql`created_at`)} as "createdAt" from work_iterations`

export async function listIterations(db: Exec, taskId: string): Promise<Iteration[]> {
  return await db.execute<Record<string, unknown>>(sql`${SELECT} where task_id = ${taskId}::uuid order by step, created_at`) as unknown as Iteration[]
}

/** For the skill detector and the debrief: recent iterations with the given outcomes, newest first. */
export async function recentIterations(db: Exec, options: { outcomes: readonly IterationOutcome[], since: Date, limit: number }): Promise<Iteration[]> {
  const outcomes = sql.join(options.outcomes.map(o => sql`${o}`), sql`, `)
  return await db.execute<Record<string, unknown>>(sql`${SELECT} where outcome in (${outcomes}) and created_at >= ${options.since.toISOString()}::timestamptz order by created_at desc limit ${options.limit}`) as unknown as Iteration[]
}

/**
 * The task a spawn of this message works on: the first open task (todo, in progress, review)
 * of the chantier the message drafted, by job then board position; null when there is none.
 */
export async function taskForMessage(db: Exec, messageId: number): Promise<string | null> {
  const [row] = await db.execute<{ id: string }>(sql`
    select t.id from atlas_inbox i
      join work_chantiers ch on ch.id = i.materialised_id and i.materialised_kind = 'chantier'
      join work_tasks t on t.chantier_id = ch.id
      join work_jobs j on j.id = t.job_id
    where i.message_id = ${messageId} and ch.status in ('planned', 'active') and t.status in ('todo', 'in_progress', 'review')
    order by j.position, t.position, t.created_at
    limit 1`)
  return row?.id ?? null
}
