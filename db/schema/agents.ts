// The agents family (atlas-agentic-core.md §2): the registry `agents` with every key column
// of the seed (French narrative columns, their `_en` twins, the runtime counters), its
// satellite tables, and — in a hand-written migration — the legacy compatibility views
// (`agent_profiles` over `agents`; `agent_activity`, `agent_heartbeat`,
// `agent_relationships`, `agent_experience`, `agent_experience_history` over their
// satellites). Plus the ReAct iteration log the Memory issue created.
import { sql } from 'drizzle-orm'
import { bigserial, check, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core'

/** The four functional families (the business source of truth of the orbits). */
export const AGENT_FAMILIES = ['direction', 'cadrage', 'execution', 'validation'] as const
export type AgentFamily = typeof AGENT_FAMILIES[number]

/** Live states an agent reports through its heartbeat. */
export const AGENT_HEARTBEAT_STATES = ['idle', 'working', 'waiting', 'error'] as const
export type AgentHeartbeatState = typeof AGENT_HEARTBEAT_STATES[number]

/** The agent registry (atlas-agentic-core.md §2.2). Narrative columns: French, `_en` for English. */
export const agents = pgTable('agents', {
  id: serial('id').primaryKey(),
  /** Lookup key, unique kebab-case. */
  codename: varchar('codename', { length: 64 }).notNull().unique(),
  /** Public human alias (Atlas, Gauss, …). */
  nickname: varchar('nickname', { length: 64 }).notNull(),
  /** Job title. */
  role: varchar('role', { length: 255 }).notNull().default(''),
  roleEn: varchar('role_en', { length: 255 }).notNull().default(''),
  /** Functional family: direction, cadrage, execution, validation. */
  groupName: varchar('group_name', { length: 64 }).notNull().default('execution'),
  /** Orbit ring stored (1, 2 or 3); the reactor draws from the family instead. */
  orbite: integer('orbite').notNull().default(3),
  heritage: varchar('heritage', { length: 255 }).notNull().default(''),
  heritageEn: varchar('heritage_en', { length: 255 }).notNull().default(''),
  /** The four cognitive dimensions: injected first in every briefing tier. */
  cognitiveFrame: text('cognitive_frame').notNull().default(''),
  cognitiveFrameEn: text('cognitive_frame_en').notNull().default(''),
  personality: text('personality').notNull().default(''),
  personalityEn: text('personality_en').notNull().default(''),
  quote: text('quote').notNull().default(''),
  quoteEn: text('quote_en').notNull().default(''),
  inspiration: text('inspiration').notNull().default(''),
  inspirationEn: text('inspiration_en').notNull().default(''),
  proof: text('proof').notNull().default(''),
  proofEn: text('proof_en').notNull().default(''),
  jobMission: text('job_mission').notNull().default(''),
  jobMissionEn: text('job_mission_en').notNull().default(''),
  jobPerimeter: text('job_perimeter').notNull().default(''),
  jobPerimeterEn: text('job_perimeter_en').notNull().default(''),
  jobKeyChecks: text('job_key_checks').notNull().default(''),
  jobKeyChecksEn: text('job_key_checks_en').notNull().default(''),
  /** Long markdown profile (the legacy agent call module's; rebuilt from the columns by the seed). */
  contentMd: text('content_md').notNull().default(''),
  /** 1 = recruitable. */
  active: integer('active').notNull().default(1),
  /** CSV of prompt domains (contenu, faq, cover, …) for routing to generation agents. */
  promptDomains: varchar('prompt_domains', { length: 255 }).notNull().default(''),
  autoSpawn: integer('auto_spawn').notNull().default(0),
  spawnCount: integer('spawn_count').notNull().default(0),
  errorCount: integer('error_count').notNull().default(0),
  lastSpawnAt: timestamp('last_spawn_at', { withTimezone: true }),
  lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  check('agents_codename_kebab_check', sql`${table.codename} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
  check('agents_group_name_check', sql`${table.groupName} in ('direction', 'cadrage', 'execution', 'validation')`),
  check('agents_orbite_check', sql`${table.orbite} between 1 and 3`),
  check('agents_active_check', sql`${table.active} in (0, 1)`),
  check('agents_auto_spawn_check', sql`${table.autoSpawn} in (0, 1)`),
  check('agents_counters_check', sql`${table.spawnCount} >= 0 and ${table.errorCount} >= 0`),
  index('agents_group_idx').on(table.groupName, table.active),
])

const agentRef = (name = 'agent') => varchar(name, { length: 64 }).notNull().references(() => agents.codename, { onDelete: 'cascade', onUpdate: 'cascade' })

/** What an agent did, one line per action (spawns, briefings, drills…). */
export const agentsActivity = pgTable('agents_activity', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  agent: agentRef(),
  /** spawn_completed, spawn_failed, briefing, … */
  kind: varchar('kind', { length: 64 }).notNull(),
  summary: text('summary').notNull().default(''),
  /** What it worked on (a message, a run, a chantier): a free reference. */
  ref: text('ref'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('agents_activity_agent_idx').on(table.agent, table.createdAt)])

/** Structured events emitted by agents (machine-readable payloads). */
export const agentsEvents = pgTable('agents_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  agent: agentRef(),
  eventType: varchar('event_type', { length: 64 }).notNull(),
  payload: jsonb('payload').notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('agents_events_agent_idx').on(table.agent, table.createdAt)])

/** The last heartbeat of each agent: its live state on the reactor. */
export const agentsHeartbeats = pgTable('agents_heartbeats', {
  agent: agentRef().primaryKey(),
  state: varchar('state', { length: 16 }).notNull().default('idle'),
  detail: text('detail').notNull().default(''),
  beatAt: timestamp('beat_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [check('agents_heartbeats_state_check', sql`${table.state} in ('idle', 'working', 'waiting', 'error')`)])

/** Inter-agent relationships (reports to, reviews, hands off to, …). */
export const agentsRelationships = pgTable('agents_relationships', {
  id: serial('id').primaryKey(),
  fromAgent: agentRef('from_agent'),
  toAgent: agentRef('to_agent'),
  kind: varchar('kind', { length: 32 }).notNull(),
  note: text('note').notNull().default(''),
  noteEn: text('note_en').notNull().default(''),
}, table => [
  uniqueIndex('agents_relationships_key').on(table.fromAgent, table.toAgent, table.kind),
  check('agents_relationships_not_self', sql`${table.fromAgent} <> ${table.toAgent}`),
])

/** An agent's accumulated experience (one row per agent). */
export const agentsExperience = pgTable('agents_experience', {
  agent: agentRef().primaryKey(),
  xp: integer('xp').notNull().default(0),
  missions: integer('missions').notNull().default(0),
  successes: integer('successes').notNull().default(0),
  failures: integer('failures').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

/** Every change of experience, append-only. */
export const agentsExperienceHistory = pgTable('agents_experience_history', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  agent: agentRef(),
  delta: integer('delta').notNull(),
  reason: text('reason').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('agents_experience_history_agent_idx').on(table.agent, table.createdAt)])

/** Reasoning / action / observation triplets of agentic (ReAct) loops. */
export const agentsReactIterations = pgTable('agents_react_iterations', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** The agent that ran the loop (codename). */
  agent: text('agent'),
  /** What the loop worked on (a run, a task): a free reference until the worksite tables exist. */
  runRef: text('run_ref').notNull().default(''),
  step: integer('step').notNull().default(1),
  thought: text('thought').notNull().default(''),
  action: text('action').notNull().default(''),
  observation: text('observation').notNull().default(''),
  /** done, pass, fail, … */
  status: text('status').notNull().default('done'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('agents_react_iterations_agent_idx').on(table.agent)])

export type Agent = typeof agents.$inferSelect
export type NewAgent = typeof agents.$inferInsert
export type AgentActivity = typeof agentsActivity.$inferSelect
export type AgentHeartbeat = typeof agentsHeartbeats.$inferSelect
export type AgentRelationship = typeof agentsRelationships.$inferSelect
export type AgentReactIteration = typeof agentsReactIterations.$inferSelect
