// The triggers dispatcher (seed 003 §12.6, I7, I8): matches events and due schedules against
// the enabled triggers and starts the agents' runs. Each firing is claimed by inserting its
// (trigger, fingerprint) row — the unique key makes two dispatchers fire an event once —
// under a per-agent advisory lock, so the hourly cap holds across dispatchers too. An agent's
// own write never wakes it; a killed agent starts nothing new (its running runs go on).
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentRuns } from '#db/schema/agent-runs'
import { agentCustom, agentTriggerFires, agentTriggers, type AgentTrigger } from '#db/schema/custom-agents'
import { causedBy, dueTime, eventFingerprint, indexTriggers, type HubEvent, type IndexedTrigger, type TriggerFilter, type TriggerIndex } from './triggers'

/** Starts (and usually drives) one run of the agent; returns its run id. */
export type LaunchRun = (input: { codename: string, triggerId: number, request: string, event: HubEvent | null }) => Promise<string>

export interface DispatchDeps {
  db: Db
  launch: LaunchRun
  now?: () => Date
  /** Runs started at once by one pass (the rest wait for the next pass's events: their fires stay claimed). */
  concurrency?: number
  log?: (line: string) => void
  /** Stops the pass between two firings (each firing is claimed and launched whole, or not at all). */
  signal?: AbortSignal
}

export type FireOutcome = 'fired' | 'capped' | 'killed' | 'self' | 'busy' | 'failed' | 'duplicate'

export interface FireResult {
  triggerId: number
  codename: string
  fingerprint: string
  outcome: FireOutcome
  runId: string | null
  detail: string
}

const DEFAULT_CONCURRENCY = 4
/** At most this many runs of one agent at a time, whatever triggers it. */
const RUNNING_PER_AGENT = 2

/** The enabled triggers of live custom agents, indexed for matching events. */
export async function loadTriggerIndex(db: Db): Promise<TriggerIndex> {
  const rows = await db
    .select({
      id: agentTriggers.id,
      codename: agentTriggers.codename,
      kind: agentTriggers.kind,
      event: agentTriggers.event,
      filters: agentTriggers.filters,
    })
    .from(agentTriggers)
    .innerJoin(agentCustom, eq(agentCustom.codename, agentTriggers.codename))
    .where(and(eq(agentTriggers.enabled, true), inArray(agentTriggers.kind, ['event', 'mention', 'mail'])))
  return indexTriggers(rows.map(row => ({ ...row, kind: row.kind as IndexedTrigger['kind'], filters: row.filters as TriggerFilter[] })))
}

/** Matches events against the triggers and fires each match once. */
export async function dispatchEvents(deps: DispatchDeps, events: HubEvent[], index?: TriggerIndex): Promise<FireResult[]> {
  const triggers = index ?? await loadTriggerIndex(deps.db)
  const planned: Array<{ trigger: IndexedTrigger, event: HubEvent }> = []
  for (const event of events) for (const trigger of triggers.match(event)) planned.push({ trigger, event })
  return await pool(deps.concurrency ?? DEFAULT_CONCURRENCY, planned, ({ trigger, event }) =>
    fire(deps, { id: trigger.id, codename: trigger.codename }, eventFingerprint(event), event, requestFor(trigger, event)), deps.signal)
}

/** Fires every schedule whose latest due time in the last day has not fired yet. */
export async function dispatchSchedules(deps: DispatchDeps): Promise<FireResult[]> {
  const now = (deps.now ?? (() => new Date()))()
  const rows: AgentTrigger[] = await deps.db.select({ trigger: agentTriggers }).from(agentTriggers)
    .innerJoin(agentCustom, eq(agentCustom.codename, agentTriggers.codename))
    .where(and(eq(agentTriggers.enabled, true), eq(agentTriggers.kind, 'schedule')))
    .then(result => result.map(row => row.trigger))
  const dayAgo = new Date(now.getTime() - 24 * 3600_000)
  const due = rows.flatMap((trigger) => {
    const since = trigger.createdAt > dayAgo ? new Date(trigger.createdAt.getTime() - 1000) : dayAgo
    const at = dueTime(trigger.cron!, since, now)
    return at ? [{ trigger, at }] : []
  })
  return await pool(deps.concurrency ?? DEFAULT_CONCURRENCY, due, ({ trigger, at }) =>
    fire(deps, { id: trigger.id, codename: trigger.codename }, `schedule:${at.toISOString()}`, null, `Scheduled run (${trigger.cron}) due ${at.toISOString()}.`))
}

/** Fires one trigger for one event (a webhook delivery: its hook already chose the trigger). */
export async function fireTrigger(
  deps: DispatchDeps,
  trigger: { id: number, codename: string },
  event: HubEvent,
  request: string,
): Promise<FireResult> {
  return await fire(deps, trigger, eventFingerprint(event), event, request)
}

function requestFor(trigger: IndexedTrigger, event: HubEvent): string {
  const fields = Object.entries(event.fields).map(([key, value]) => `${key}: ${value ?? '—'}`).join('\n')
  return `Triggered by ${trigger.kind === 'event' ? trigger.event : trigger.kind} (${event.kind} ${event.id}).\n${fields}`.slice(0, 20_000)
}

async function fire(
  deps: DispatchDeps,
  trigger: { id: number, codename: string },
  fingerprint: string,
  event: HubEvent | null,
  request: string,
): Promise<FireResult> {
  const result = (outcome: FireOutcome, runId: string | null = null, detail = ''): FireResult => ({
    triggerId: trigger.id,
    codename: trigger.codename,
    fingerprint,
    outcome,
    runId,
    detail,
  })
  const now = (deps.now ?? (() => new Date()))()
  const claimed = await deps.db.transaction(async (tx) => {
    // One agent's firings are decided one at a time: the cap counts what the other dispatcher just fired.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`agent-trigger:${trigger.codename}`}))`)
    // The agent, its fires of the last hour and its running runs in one round trip (a burst claims many).
    const hourAgo = new Date(now.getTime() - 3600_000)
    const [agent] = await tx
      .select({
        killed: agentCustom.killed,
        runsPerHour: agentCustom.runsPerHour,
        fired: sql<number>`(select count(*)::int from ${agentTriggerFires} where ${agentTriggerFires.codename} = ${trigger.codename} and ${agentTriggerFires.outcome} = 'fired' and ${agentTriggerFires.firedAt} >= ${hourAgo.toISOString()}::timestamptz)`,
        running: sql<number>`(select count(*)::int from ${agentRuns} where ${agentRuns.agent} = ${trigger.codename} and ${agentRuns.status} in ('running', 'awaiting_approval'))`,
      })
      .from(agentCustom)
      .where(eq(agentCustom.codename, trigger.codename))
    let outcome: FireOutcome = 'fired'
    let detail = ''
    if (!agent) [outcome, detail] = ['killed', 'the agent is no longer a custom agent']
    else if (event && causedBy(event, trigger.codename)) [outcome, detail] = ['self', 'the event is the agent\'s own write']
    else if (agent.killed) [outcome, detail] = ['killed', 'the agent\'s kill switch is on']
    else if (agent.fired >= agent.runsPerHour) [outcome, detail] = ['capped', `${agent.runsPerHour} autonomous runs in the last hour`]
    else if (agent.running >= RUNNING_PER_AGENT) [outcome, detail] = ['busy', `${agent.running} runs of the agent are still going`]
    const [row] = await tx
      .insert(agentTriggerFires)
      .values({ triggerId: trigger.id, codename: trigger.codename, fingerprint, outcome, detail, firedAt: now })
      .onConflictDoNothing({ target: [agentTriggerFires.triggerId, agentTriggerFires.fingerprint] })
      .returning({ id: agentTriggerFires.id })
    return row ? { id: row.id, outcome, detail } : null
  })
  if (!claimed) return result('duplicate', null, 'already fired for this event')
  if (claimed.outcome !== 'fired') {
    deps.log?.(`${trigger.codename}: trigger ${trigger.id} ${claimed.outcome} (${claimed.detail})`)
    return result(claimed.outcome, null, claimed.detail)
  }
  try {
    const runId = await deps.launch({ codename: trigger.codename, triggerId: trigger.id, request, event })
    await deps.db.update(agentTriggerFires).set({ runId }).where(eq(agentTriggerFires.id, claimed.id))
    return result('fired', runId)
  }
  catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    await deps.db
      .update(agentTriggerFires)
      .set({ outcome: 'failed', detail: detail.slice(0, 2000) })
      .where(eq(agentTriggerFires.id, claimed.id))
    deps.log?.(`${trigger.codename}: trigger ${trigger.id} failed to start a run: ${detail}`)
    return result('failed', null, detail)
  }
}

async function pool<T, R>(size: number, items: T[], work: (item: T) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const i = next++
      results[i] = await work(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker))
  // A stopped pass has holes: its caller must not count the unfired items as done.
  signal?.throwIfAborted()
  return results
}
