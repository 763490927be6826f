// What the hub reads of the spawn engine: whether it is switched off, its queue and slots,
// the spawns of a message (with their last event and how long ago), and event pages.
import { and, asc, desc, eq, gt, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasSpawnEvents, atlasSpawnLessons, atlasSpawns, type AtlasSpawn } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'
import { SANDBOX_MODES, SPAWN_QUEUE, spawnDisabled } from './config'
import type { QaReport } from './qa'
import { readSpawnSwitch, type StoredSpawnSwitch } from './switch'

/** A running spawn with no event for this long is shown as possibly hung. */
export const HUNG_AFTER_MS = 5 * 60_000

export interface SpawnEngineStatus {
  disabled: boolean
  /** Which side switched it off: ATLAS_SPAWN_DISABLED=1 (wins) or a founder in the hub. */
  disabledBy: 'env' | 'hub' | null
  /** Why it is off, in words, when it is. */
  note: string | null
  /** The hub's switch as last turned (who, when, why), or null when no founder ever turned it. */
  switch: StoredSpawnSwitch | null
  /** How agents are confined (SPAWN_SANDBOX), and a warning when they are not. */
  sandbox: string
  sandboxWarning: string | null
  queue: Record<string, number>
  running: SpawnSummary[]
  slots: Array<{ name: string, host: string, pid: number, heartbeatAt: string }>
}

/**
 * The QA report stored on a spawn: deploy-qa.ts writes a whole QaReport, but the jsonb column
 * is untyped and a row may predate a field, so every field is read as possibly missing.
 */
export type SpawnQa = Partial<QaReport>

export interface SpawnSummary {
  id: string
  messageId: number
  iteration: number
  status: string
  outcome: string | null
  reason: string | null
  host: string | null
  pid: number | null
  agentPid: number | null
  model: string | null
  queuedAt: string
  claimedAt: string | null
  agentStartedAt: string | null
  endedAt: string | null
  lastEventAt: string | null
  lastEventType: string | null
  /** Milliseconds since the last event (or the claim) while running. */
  silentForMs: number | null
  possiblyHung: boolean
  eventCount: number
  costUsd: number | null
  tokensIn: number | null
  tokensOut: number | null
  durationMs: number | null
  numTurns: number | null
  result: Record<string, unknown> | null
  resultSource: string | null
  deploy: Record<string, unknown> | null
  qa: SpawnQa | null
  carriedErrors: unknown[] | null
  prompt: string | null
  /** The registry agent it was routed to, and the prompt domain the routing used. */
  agent: string | null
  promptDomain: string | null
  /** The briefing in its system prompt: its tokens and the budget it was fitted to; null when unbriefed. */
  briefing: { tokens: number | null, budget: number | null } | null
}

/** One lesson of a spawn: injected in its briefing (rank, origin) or produced by its outcome. */
export interface SpawnLessonRef {
  id: number
  kind: 'scar' | 'victory'
  title: string
  agent: string | null
  archived: boolean
}

/** The spawn page's detail: the summary, the briefing as sent, the lessons it carried and the one it produced. */
export interface SpawnDetail extends SpawnSummary {
  briefingText: string | null
  lessonsInjected: Array<SpawnLessonRef & { rank: number, origin: 'own' | 'global' }>
  lessonsProduced: SpawnLessonRef[]
}

const iso = (value: Date | null) => value ? value.toISOString() : null

export function summarise(spawn: AtlasSpawn, now = Date.now()): SpawnSummary {
  const since = spawn.lastEventAt ?? spawn.agentStartedAt ?? spawn.claimedAt
  const silentForMs = spawn.status === 'running' && since ? Math.max(0, now - since.getTime()) : null
  return {
    id: spawn.id,
    messageId: spawn.messageId,
    iteration: spawn.iteration,
    status: spawn.status,
    outcome: spawn.outcome,
    reason: spawn.reason,
    host: spawn.host,
    pid: spawn.pid,
    agentPid: spawn.agentPid,
    model: spawn.model,
    queuedAt: spawn.queuedAt.toISOString(),
    claimedAt: iso(spawn.claimedAt),
    agentStartedAt: iso(spawn.agentStartedAt),
    endedAt: iso(spawn.endedAt),
    lastEventAt: iso(spawn.lastEventAt),
    lastEventType: spawn.lastEventType,
    silentForMs,
    possiblyHung: silentForMs !== null && silentForMs > HUNG_AFTER_MS,
    eventCount: spawn.eventCount,
    costUsd: spawn.costUsd,
    tokensIn: spawn.tokensIn,
    tokensOut: spawn.tokensOut,
    durationMs: spawn.durationMs,
    numTurns: spawn.numTurns,
    result: spawn.result ?? null,
    resultSource: spawn.resultSource ?? null,
    deploy: spawn.deploy ?? null,
    qa: (spawn.qa ?? null) as SpawnQa | null,
    carriedErrors: spawn.carriedErrors ?? null,
    prompt: spawn.prompt,
    agent: spawn.agentCodename,
    promptDomain: spawn.promptDomain,
    briefing:
      spawn.briefingTokens === null && spawn.briefingBudget === null
        ? null
        : { tokens: spawn.briefingTokens, budget: spawn.briefingBudget },
  }
}

export async function spawnEngineStatus(db: Db, env: Readonly<Record<string, string | undefined>>): Promise<SpawnEngineStatus> {
  const envDisabled = spawnDisabled(env)
  const stored = await readSpawnSwitch(db)
  const disabledBy = envDisabled ? 'env' : stored?.disabled ? 'hub' : null
  const queueRows = await db.execute<{ state: string, n: number }>(sql`
    select state::text as state, count(*)::int as n from pgboss.job where name = ${SPAWN_QUEUE} and state < 'completed' group by state`).catch(() => [])
  const running = await db.select().from(atlasSpawns).where(eq(atlasSpawns.status, 'running')).orderBy(asc(atlasSpawns.claimedAt))
  const slots = await db.execute<{ name: string, host: string, pid: number, heartbeat_at: string | Date }>(sql`
    select name, host, pid, heartbeat_at from ops_locks where starts_with(name, 'atlas-spawn:') and expires_at >= now() order by name`)
  return {
    disabled: disabledBy !== null,
    disabledBy,
    note: disabledBy === 'env'
      ? 'The spawn engine is switched off (ATLAS_SPAWN_DISABLED=1): nothing is queued or spawned; running spawns finish. Unset the variable to resume.'
      : disabledBy === 'hub'
        ? `The spawn engine is switched off from the hub by ${stored!.by}${stored!.reason ? ` (${stored!.reason})` : ''}: nothing is queued or spawned; running spawns finish. A founder switches it back on.`
        : null,
    switch: stored,
    ...sandboxStatus(env),
    queue: Object.fromEntries(queueRows.map(row => [row.state, row.n])),
    running: running.map(spawn => summarise(spawn)),
    slots: slots.map(row => ({ name: row.name, host: row.host, pid: row.pid, heartbeatAt: new Date(row.heartbeat_at).toISOString() })),
  }
}

/** SPAWN_SANDBOX as the hub shows it: `none` (or a value the workers refuse) is a warning. */
export function sandboxStatus(env: Readonly<Record<string, string | undefined>>): { sandbox: string, sandboxWarning: string | null } {
  const sandbox = env.SPAWN_SANDBOX?.trim() || 'srt'
  if (sandbox === 'none') return { sandbox, sandboxWarning: 'SPAWN_SANDBOX=none: coding agents run unconfined, with the file system and the network of the worker\'s user (refused when the worker runs as root). Use srt or bwrap.' }
  if (!(SANDBOX_MODES as readonly string[]).includes(sandbox)) return { sandbox, sandboxWarning: `SPAWN_SANDBOX=${sandbox} is not a sandbox (srt, bwrap or none): the workers refuse to start agents.` }
  return { sandbox, sandboxWarning: null }
}

export async function listSpawns(db: Db, messageId: number): Promise<SpawnSummary[]> {
  const rows = await db.select().from(atlasSpawns).where(eq(atlasSpawns.messageId, messageId)).orderBy(desc(atlasSpawns.queuedAt))
  const now = Date.now()
  return rows.map(spawn => summarise(spawn, now))
}

export async function getSpawn(db: Db, spawnId: string): Promise<SpawnDetail | null> {
  const [row] = await db.select().from(atlasSpawns).where(eq(atlasSpawns.id, spawnId))
  if (!row) return null
  const lesson = {
    id: learnLessons.id,
    kind: learnLessons.kind,
    title: learnLessons.title,
    agent: learnLessons.agent,
    archivedAt: learnLessons.archivedAt,
  }
  const [injected, produced] = await Promise.all([
    db
      .select({ ...lesson, rank: atlasSpawnLessons.rank, origin: atlasSpawnLessons.origin })
      .from(atlasSpawnLessons)
      .innerJoin(learnLessons, eq(learnLessons.id, atlasSpawnLessons.lessonId))
      .where(eq(atlasSpawnLessons.spawnId, spawnId))
      .orderBy(asc(atlasSpawnLessons.rank)),
    db.select(lesson).from(learnLessons).where(eq(learnLessons.sourceSpawnId, spawnId)).orderBy(asc(learnLessons.id)),
  ])
  const ref = (l: typeof produced[number]): SpawnLessonRef => ({ id: l.id, kind: l.kind === 'success' ? 'victory' : 'scar', title: l.title, agent: l.agent, archived: l.archivedAt !== null })
  return {
    ...summarise(row),
    briefingText: row.briefing,
    lessonsInjected: injected.map(l => ({ ...ref(l), rank: l.rank, origin: l.origin })),
    lessonsProduced: produced.map(ref),
  }
}

export interface SpawnEventRow {
  seq: number
  eventType: string
  subtype: string | null
  toolName: string | null
  at: string
  /** A line of text for the live view (the full payload is in `payload` when asked for). */
  preview: string
  payload?: unknown
}

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null
}

const short = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text).replace(/\s+/g, ' ').trim()

/** One readable line per event: the text of a delta or message, a tool call, a result. */
export function previewOf(payload: unknown): string {
  const event = record(payload)
  if (!event) return ''
  const type = String(event.type ?? '')
  if (type === 'stream_event') {
    const inner = record(event.event)
    const delta = record(inner?.delta)
    if (typeof delta?.text === 'string') return short(delta.text)
    if (typeof delta?.partial_json === 'string') return short(delta.partial_json)
    return String(inner?.type ?? '')
  }
  if (type === 'assistant' || type === 'user') {
    const content = record(event.message)?.content
    const blocks = Array.isArray(content) ? content.map(record).filter(Boolean) as Array<Record<string, unknown>> : []
    return short(blocks.map((block) => {
      if (block.type === 'text') return String(block.text ?? '')
      if (block.type === 'tool_use') return `${String(block.name)}(${JSON.stringify(block.input ?? {})})`
      if (block.type === 'tool_result') return `→ ${typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '')}`
      return String(block.type ?? '')
    }).join(' '))
  }
  if (type === 'result') return short(`${String(event.subtype ?? '')}${event.is_error ? ' (error)' : ''}${typeof event.total_cost_usd === 'number' ? `, $${event.total_cost_usd.toFixed(4)}` : ''}${typeof event.num_turns === 'number' ? `, ${event.num_turns} turns` : ''}`)
  if (type === 'system') return short([event.subtype, event.hook_name, event.model].filter(Boolean).join(' '))
  if (type === 'wrapper_noise') return short(String(event.text ?? ''))
  if (type === 'node_pty_exit') return short(`exit ${String(event.exit_code)}${event.timed_out ? ', timed out' : ''}${event.stopped_because ? `, ${String(event.stopped_because)}` : ''}`)
  if (type === 'node_pty_spawn') return `agent pid ${String(event.pid)}`
  return short(JSON.stringify(event), 200)
}

export async function spawnEvents(
  db: Db,
  spawnId: string,
  options: { after?: number, limit?: number, payload?: boolean } = {},
): Promise<SpawnEventRow[]> {
  const limit = Math.min(Math.max(options.limit ?? 200, 1), 1000)
  const rows = await db
    .select()
    .from(atlasSpawnEvents)
    .where(and(eq(atlasSpawnEvents.spawnId, spawnId), gt(atlasSpawnEvents.seq, options.after ?? 0)))
    .orderBy(asc(atlasSpawnEvents.seq))
    .limit(limit)
  return rows.map(row => ({
    seq: row.seq,
    eventType: row.eventType,
    subtype: row.subtype,
    toolName: row.toolName,
    at: row.at.toISOString(),
    preview: previewOf(row.payload),
    ...(options.payload ? { payload: row.payload } : {}),
  }))
}
