// A finished spawn attempt as a step of its task (worksites' iterations): what the agent
// reasoned, did and observed, read from the spawn's result and its stored events, and the
// outcome: pass (QA passed), done (actioned without QA), fail (anything else).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordIteration } from '#layers/worksites/core/iterations'
import type { IterationOutcome } from '#layers/worksites/core/vocabulary'

type Exec = Pick<Db, 'execute'>

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

const parse = <T>(value: unknown): T | null => (typeof value === 'string' ? JSON.parse(value) as T : (value as T | null) ?? null)

/** Reasoning, action and observation from the spawn's stored events and its result. */
async function readSteps(db: Exec, spawn: SpawnEnd): Promise<{ reasoning: string, action: string, observation: string }> {
  const events = await db.execute<{ event_type: string, tool_name: string | null, payload: unknown }>(sql`
    select event_type, tool_name, payload from atlas_spawn_events where spawn_id = ${spawn.id}::uuid and event_type in ('assistant', 'tool_result') order by seq limit 2000`)
  const thoughts: string[] = []
  const tools: string[] = []
  const results: string[] = []
  for (const event of events) {
    const payload = parse<{ message?: { content?: Array<{ type?: string, text?: string, name?: string, content?: unknown }> } }>(
      event.payload,
    )
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
    reasoning: thoughts.join('\n\n'),
    action: [calls.length ? `Tools: ${calls.join(', ')}` : 'No tool call', ...commits].join('\n'),
    observation: observation || `The spawn ended ${spawn.status}${spawn.outcome ? ` (${spawn.outcome})` : ''}.`,
  }
}

/**
 * Writes the iteration of a finished spawn attempt under its task (nothing when the spawn works
 * on no task): the steps read here from the spawn's own tables, handed to worksites as plain
 * data. Idempotent: one iteration per spawn, the step is the task's next.
 */
export async function recordSpawnIteration(
  db: Exec,
  spawnId: string,
): Promise<{ taskId: string, step: number, outcome: IterationOutcome } | null> {
  const [spawn] = await db.execute<SpawnEnd & Record<string, unknown>>(sql`
    select id, task_id, status, outcome, reason, result, qa, agent_codename from atlas_spawns where id = ${spawnId}::uuid`)
  // Only an ended attempt: a spawn still running (its lease was lost, recovery owns it) has no outcome yet.
  if (!spawn?.task_id || spawn.status === 'queued' || spawn.status === 'running') return null
  const steps = await readSteps(db, spawn)
  const outcome = iterationOutcome({ outcome: spawn.outcome, qa: parse(spawn.qa) })
  return await recordIteration(db, { taskId: spawn.task_id, spawnId: spawn.id, ...steps, outcome, agentCodename: spawn.agent_codename })
}
