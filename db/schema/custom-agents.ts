// Custom agents (issue 21 Deliver 6–10, seed 003 §9, §12.6–§12.8, I11, P3): the configuration
// of a registry agent made by a person (instructions document, model, allowlist, delegation,
// kill switch, hourly cap), every save a version, its triggers, and the fires the dispatcher
// claimed (unique per trigger and event fingerprint: two dispatchers cannot fire one event twice).
import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { agentInstructions } from './agent-instructions'
import { agents } from './agents'

/** What an autonomous run of the agent may touch: nothing by default (P3). */
export interface CustomAgentAllowlist {
  tools: string[]
  tenants: string[]
  documents: string[]
  skills: number[]
}

export const agentCustom = pgTable('agent_custom', {
  codename: varchar('codename', { length: 64 }).primaryKey().references(() => agents.codename, { onDelete: 'cascade', onUpdate: 'cascade' }),
  ownerEmail: text('owner_email').notNull(),
  description: text('description').notNull().default(''),
  instructionId: uuid('instruction_id').references(() => agentInstructions.id, { onDelete: 'set null' }),
  /** Skills attached (skills.id): given to every run as forced skills. */
  skillIds: jsonb('skill_ids').$type<number[]>().notNull().default([]),
  allowlist: jsonb('allowlist').$type<CustomAgentAllowlist>().notNull().default({ tools: [], tenants: [], documents: [], skills: [] }),
  model: jsonb('model').$type<{ provider: string, model?: string }>().notNull().default({ provider: 'auto' }),
  canDelegate: boolean('can_delegate').notNull().default(false),
  maxDepth: integer('max_depth').notNull().default(3),
  runsPerHour: integer('runs_per_hour').notNull().default(6),
  /** Stops new runs (running ones continue). */
  killed: boolean('killed').notNull().default(false),
  version: integer('version').notNull().default(1),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  check('agent_custom_depth_check', sql`${table.maxDepth} between 1 and 5`),
  check('agent_custom_rate_check', sql`${table.runsPerHour} between 0 and 120`),
])

/** Every save of a custom agent's configuration (I11): never deleted, any one restorable. */
export const agentCustomVersions = pgTable('agent_custom_versions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  codename: varchar('codename', { length: 64 }).notNull().references(() => agents.codename, { onDelete: 'cascade', onUpdate: 'cascade' }),
  version: integer('version').notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  savedBy: text('saved_by').notNull(),
  note: text('note').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [uniqueIndex('agent_custom_versions_key').on(table.codename, table.version)])

export const TRIGGER_KINDS = ['schedule', 'event', 'mention', 'mail', 'webhook'] as const
export type TriggerKind = typeof TRIGGER_KINDS[number]

export const agentTriggers = pgTable(
  'agent_triggers',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    codename: varchar('codename', { length: 64 })
      .notNull()
      .references(() => agents.codename, { onDelete: 'cascade', onUpdate: 'cascade' }),
    kind: text('kind').notNull(),
    /** schedule: a cron expression (UTC). */
    cron: text('cron'),
    /** event: atlas_message, lesson_recorded, work_item_status; mail: the tenant id; webhook: the forge events, comma-separated. */
    event: text('event'),
    filters: jsonb('filters')
      .$type<Array<{ field: string, op: 'eq' | 'neq' | 'contains' | 'changed', value?: string }>>()
      .notNull()
      .default([]),
    enabled: boolean('enabled').notNull().default(true),
    /** webhook: the hook's URL segment (/api/hooks/<slug>), kept across saves while the trigger stays. */
    hookSlug: text('hook_slug'),
    /**
     * webhook: the HMAC secret sealed with the hub's key (AES-256-GCM): recoverable to verify, never readable in the database. Null until
     * first shown.
     */
    hookSecret: text('hook_secret'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  table => [
    index('agent_triggers_agent_idx').on(table.codename),
    uniqueIndex('agent_triggers_hook_slug_key').on(table.hookSlug),
    check('agent_triggers_kind_check', sql`${table.kind} in ('schedule', 'event', 'mention', 'mail', 'webhook')`),
    check('agent_triggers_schedule_check', sql`${table.kind} <> 'schedule' or ${table.cron} is not null`),
    check('agent_triggers_webhook_check', sql`${table.kind} <> 'webhook' or ${table.hookSlug} is not null`),
  ],
)

/**
 * Every delivery a webhook accepted, by the forge's delivery id: the unique key refuses a
 * replay. Keyed by the hook's slug, not the trigger row, which each save of the agent rewrites.
 */
export const agentWebhookDeliveries = pgTable('agent_webhook_deliveries', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  hookSlug: text('hook_slug').notNull(),
  deliveryId: text('delivery_id').notNull(),
  /** The forge's event (push, pull_request, ping…). */
  forgeEvent: text('forge_event').notNull(),
  /** started (a run), ignored (the trigger's filters), or the dispatcher's outcome (capped, killed, busy, failed). */
  outcome: text('outcome').notNull(),
  runId: uuid('run_id'),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('agent_webhook_deliveries_key').on(table.hookSlug, table.deliveryId),
])

/** One row per (trigger, event fingerprint) the dispatcher fired: the unique key is the dedup. */
export const agentTriggerFires = pgTable('agent_trigger_fires', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  triggerId: bigint('trigger_id', { mode: 'number' }).notNull().references(() => agentTriggers.id, { onDelete: 'cascade' }),
  codename: varchar('codename', { length: 64 }).notNull(),
  fingerprint: text('fingerprint').notNull(),
  /** fired (a run was started), capped, killed, self (the agent's own write), failed. */
  outcome: text('outcome').notNull(),
  runId: uuid('run_id'),
  detail: text('detail').notNull().default(''),
  firedAt: timestamp('fired_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('agent_trigger_fires_key').on(table.triggerId, table.fingerprint),
  index('agent_trigger_fires_agent_idx').on(table.codename, table.firedAt),
  check('agent_trigger_fires_outcome_check', sql`${table.outcome} in ('fired', 'capped', 'killed', 'self', 'busy', 'failed')`),
])

/**
 * Where the dispatcher has read each event source to: the (time, id) of the last row it
 * dispatched, the time kept as text to the microsecond (a JS Date would round it to the
 * millisecond and read that row again). Rows with the same time are ordered by id, so none
 * is skipped or read twice, and a restarted dispatcher goes on from here.
 */
export const agentEventCursors = pgTable('agent_event_cursors', {
  source: varchar('source', { length: 32 }).primaryKey(),
  at: text('at').notNull(),
  lastId: bigint('last_id', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

export type AgentCustom = typeof agentCustom.$inferSelect
export type AgentTrigger = typeof agentTriggers.$inferSelect

export const SHARE_LEVELS = ['use', 'edit', 'full'] as const
export type ShareLevel = typeof SHARE_LEVELS[number]

/** A custom agent shared with a person (seed 003 §9): use < edit < full. Never widens a run's access. */
export const agentCustomShares = pgTable('agent_custom_shares', {
  codename: varchar('codename', { length: 64 }).notNull().references(() => agents.codename, { onDelete: 'cascade', onUpdate: 'cascade' }),
  email: text('email').notNull(),
  level: text('level').notNull(),
  grantedBy: text('granted_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  primaryKey({ columns: [table.codename, table.email] }),
  index('agent_custom_shares_email_idx').on(table.email),
  check('agent_custom_shares_level_check', sql`${table.level} in ('use', 'edit', 'full')`),
])

/** What the personal agent proposed (draft_custom_agent): never an agent until the person saves it. */
export interface CustomAgentProposal {
  codename: string
  nickname: string
  description: string
  instructions: string
  triggers: Array<Record<string, unknown>>
  model: { provider: string, model?: string }
  /** Tools suggested and within the person's role: shown unticked until the person confirms them. */
  suggestedTools: string[]
  /** Tools the draft asked for that the person's role does not have (or that do not exist). */
  refusedTools: Array<{ name: string, reason: string }>
}

export const agentCustomDrafts = pgTable('agent_custom_drafts', {
  id: uuid('id').primaryKey().defaultRandom(),
  ownerEmail: text('owner_email').notNull(),
  runId: uuid('run_id'),
  proposal: jsonb('proposal').$type<CustomAgentProposal>().notNull(),
  /** draft (to review), saved (became savedAs), discarded (the person or an undo withdrew it). */
  status: text('status').notNull().default('draft'),
  savedAs: varchar('saved_as', { length: 64 }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('agent_custom_drafts_owner_idx').on(table.ownerEmail, table.status),
  check('agent_custom_drafts_status_check', sql`${table.status} in ('draft', 'saved', 'discarded')`),
])

/** The studio policy (P3): one row; `tools` null = every registered tool an autonomous agent may ever use. */
export const agentStudioPolicy = pgTable('agent_studio_policy', {
  id: integer('id').primaryKey().default(1),
  tools: jsonb('tools').$type<string[] | null>(),
  updatedBy: text('updated_by').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [check('agent_studio_policy_single_check', sql`${table.id} = 1`)])

export type AgentCustomShare = typeof agentCustomShares.$inferSelect
export type AgentCustomDraft = typeof agentCustomDrafts.$inferSelect
