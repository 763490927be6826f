// The Atlas spawn engine: one row per spawn of the headless agent (queued by the
// orchestrator, run by a spawn worker, followed by deploy and QA), and the live event log
// of each spawn. The events live in a base table; the pipeline reads and writes them
// through the simple updatable view `atlas_spawn_events` (the seeds' Strangler-Fig
// pattern), created by hand in a custom migration together with the pg-boss job queue.
import { sql } from 'drizzle-orm'
import { bigint, bigserial, check, doublePrecision, index, integer, jsonb, pgTable, pgView, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { atlasMessages } from './atlas'
import { learnLessons } from './learn'
import { workTasks } from './worksites'

export const SPAWN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'lost', 'cancelled'] as const
export type SpawnStatus = typeof SPAWN_STATUSES[number]

/** One spawn of the agent for a message (iteration 1, then one per QA re-spawn). */
export const atlasSpawns = pgTable('atlas_spawns', {
  id: uuid('id').primaryKey().defaultRandom(),
  messageId: bigint('message_id', { mode: 'number' }).notNull().references(() => atlasMessages.id),
  /** 1 for the first spawn of a cycle, 2 and 3 for the re-spawns after a failed QA. */
  iteration: integer('iteration').notNull().default(1),
  previousSpawnId: uuid('previous_spawn_id'),
  status: text('status').$type<SpawnStatus>().notNull().default('queued'),
  /** What the spawn led to: actioned, qa_failed, escalated, spawn_failed, worker_lost… */
  outcome: text('outcome'),
  /** Why it failed or ended as it did, in words for the hub. */
  reason: text('reason'),
  /** The pg-boss job carrying it. */
  jobId: text('job_id'),
  queuedBy: text('queued_by').notNull(),
  /** The worker that claimed it: host, process, worker id. */
  host: text('host'),
  pid: integer('pid'),
  worker: text('worker'),
  /** The agent's process (leader of its own process group). */
  agentPid: integer('agent_pid'),
  model: text('model'),
  /** The user prompt given to the agent (the e-mail, the classification, the QA errors of a re-spawn). */
  prompt: text('prompt'),
  logPath: text('log_path'),
  /** QA errors carried to the next spawn of the loop (application and browser errors). */
  carriedErrors: jsonb('carried_errors').$type<unknown[]>(),
  queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
  claimedAt: timestamp('claimed_at', { withTimezone: true }),
  agentStartedAt: timestamp('agent_started_at', { withTimezone: true }),
  agentEndedAt: timestamp('agent_ended_at', { withTimezone: true }),
  endedAt: timestamp('ended_at', { withTimezone: true }),
  lastEventAt: timestamp('last_event_at', { withTimezone: true }),
  lastEventType: text('last_event_type'),
  eventCount: integer('event_count').notNull().default(0),
  wrapperExitCode: integer('wrapper_exit_code'),
  /** The result contract as read (from the result file, or the salvaged checkpoint). */
  result: jsonb('result').$type<Record<string, unknown>>(),
  resultSource: text('result_source').$type<'file' | 'checkpoint'>(),
  /** The agent's final `result` event figures. */
  costUsd: doublePrecision('cost_usd'),
  tokensIn: integer('tokens_in'),
  tokensOut: integer('tokens_out'),
  durationMs: integer('duration_ms'),
  numTurns: integer('num_turns'),
  deploy: jsonb('deploy').$type<Record<string, unknown>>(),
  qa: jsonb('qa').$type<Record<string, unknown>>(),
  /** The registry agent the message was routed to (codename; no foreign key: the trail outlives a renamed agent). */
  agentCodename: text('agent_codename'),
  /** The prompt domain the routing used (from the classified intent). */
  promptDomain: text('prompt_domain'),
  /** The briefing in the system prompt: its token count (o200k_base) and the budget it was fitted to. */
  briefingTokens: integer('briefing_tokens'),
  briefingBudget: integer('briefing_budget'),
  /** The briefing as sent, in the system prompt (the spawn page shows it). */
  briefing: text('briefing'),
  /** The worksites task the spawn works on (its iterations are written under it); null for a message-only spawn. */
  taskId: uuid('task_id').references(() => workTasks.id, { onDelete: 'set null' }),
}, table => [
  index('atlas_spawns_task_idx').on(table.taskId),
  index('atlas_spawns_message_idx').on(table.messageId, table.queuedAt),
  index('atlas_spawns_status_idx').on(table.status),
  // At most one live spawn per message: the database itself refuses a second one.
  uniqueIndex('atlas_spawns_one_live_per_message').on(table.messageId).where(sql`status in ('queued', 'running')`),
  check('atlas_spawns_status_check', sql`${table.status} in ('queued', 'running', 'succeeded', 'failed', 'lost', 'cancelled')`),
  check('atlas_spawns_iteration_check', sql`${table.iteration} between 1 and 10`),
])

/** The lessons (scars and victories) injected in a spawn's briefing, in their rank order (1 first). */
export const atlasSpawnLessons = pgTable('atlas_spawn_lessons', {
  spawnId: uuid('spawn_id').notNull().references(() => atlasSpawns.id, { onDelete: 'cascade' }),
  lessonId: bigint('lesson_id', { mode: 'number' }).notNull().references(() => learnLessons.id, { onDelete: 'cascade' }),
  rank: integer('rank').notNull(),
  /** own: the routed agent's lesson; global: a lesson without an owner. */
  origin: text('origin').$type<'own' | 'global'>().notNull(),
}, table => [
  primaryKey({ columns: [table.spawnId, table.lessonId] }),
  index('atlas_spawn_lessons_lesson_idx').on(table.lessonId),
  check('atlas_spawn_lessons_rank_check', sql`${table.rank} >= 1`),
  check('atlas_spawn_lessons_origin_check', sql`${table.origin} in ('own', 'global')`),
])

/** The base table of the live event log (written and read through the view atlas_spawn_events). */
export const atlasSpawnEventsBase = pgTable('atlas_spawn_events_base', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  spawnId: uuid('spawn_id').notNull().references(() => atlasSpawns.id),
  messageId: bigint('message_id', { mode: 'number' }).notNull(),
  /** Order of arrival within the spawn, from 1. */
  seq: integer('seq').notNull(),
  /** stream (partial deltas), system (init, hooks), tool_result, assistant, user, result, wrapper, noise. */
  eventType: text('event_type').notNull(),
  /** The protocol's own type/subtype, e.g. `system/init`, `stream_event/content_block_delta`. */
  subtype: text('subtype'),
  toolName: text('tool_name'),
  payload: jsonb('payload').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('atlas_spawn_events_base_spawn_seq_key').on(table.spawnId, table.seq),
  index('atlas_spawn_events_base_message_idx').on(table.messageId, table.id),
])

/** The updatable view the pipeline writes and reads (created in a custom migration). */
export const atlasSpawnEvents = pgView('atlas_spawn_events', {
  id: bigint('id', { mode: 'number' }).notNull(),
  spawnId: uuid('spawn_id').notNull(),
  messageId: bigint('message_id', { mode: 'number' }).notNull(),
  seq: integer('seq').notNull(),
  eventType: text('event_type').notNull(),
  subtype: text('subtype'),
  toolName: text('tool_name'),
  payload: jsonb('payload').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull(),
}).existing()

export type AtlasSpawn = typeof atlasSpawns.$inferSelect
export type AtlasSpawnEvent = typeof atlasSpawnEvents.$inferSelect
