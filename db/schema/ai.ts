import { bigserial, boolean, check, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'

/** The routing row every feature falls back to (the seed's "global fallback row"). */
export const AI_ROUTING_GLOBAL = 'default'

/** Extended per-feature parameters of a routing row (all optional). */
export interface AiRoutingParams {
  /** Per-call timeout for completions of this feature, in milliseconds. */
  timeoutMs?: number
  /** Completion max tokens. */
  maxTokens?: number
  /** Embedding dimensions (1024 everywhere the vector index is concerned). */
  dimensions?: number
  [key: string]: unknown
}

/**
 * Database-driven routing: for provider 'auto', the facade merges the row of the feature
 * with the global row ('default'). A null column means "inherit".
 */
export const aiRouting = pgTable('ai_routing', {
  feature: text('feature').primaryKey(),
  completeProvider: text('complete_provider'),
  completeModel: text('complete_model'),
  embedProvider: text('embed_provider'),
  embedModel: text('embed_model'),
  params: jsonb('params').$type<AiRoutingParams>().notNull().default({}),
  note: text('note').notNull().default(''),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: text('updated_by'),
})

/** List prices per model, USD per million tokens; model '*' prices a whole provider. Editable in the hub. */
export const aiPrices = pgTable('ai_prices', {
  provider: text('provider').notNull(),
  model: text('model').notNull(),
  inputUsdPerMtok: numeric('input_usd_per_mtok', { precision: 12, scale: 6, mode: 'number' }).notNull(),
  outputUsdPerMtok: numeric('output_usd_per_mtok', { precision: 12, scale: 6, mode: 'number' }).notNull(),
  /** Included in the studio's allowance (seed 003 §10.6): its calls cost 0 credit and keep running past a budget. */
  included: boolean('included').notNull().default(false),
  note: text('note').notNull().default(''),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: text('updated_by'),
}, table => [
  primaryKey({ columns: [table.provider, table.model] }),
  check('ai_prices_non_negative', sql`${table.inputUsdPerMtok} >= 0 and ${table.outputUsdPerMtok} >= 0`),
])

export const AI_CALL_KINDS = ['generation', 'completion', 'embedding', 'agent'] as const
export type AiCallKind = typeof AI_CALL_KINDS[number]
export const AI_OUTCOMES = ['ok', 'failed'] as const
export type AiOutcome = typeof AI_OUTCOMES[number]
/** The seed's ledger buckets: 'allowance' (an included model or the offline provider, 0 credit), 'premium' (counts against budgets). */
export const AI_BUCKETS = ['allowance', 'premium'] as const
export type AiBucket = typeof AI_BUCKETS[number]

/**
 * The consumption ledger: one row per attempt (success or failure) of every model call.
 * Never holds a key or a prompt.
 */
export const aiConsumption = pgTable('ai_consumption', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** Groups the attempts of one facade call (retries and failovers). */
  callId: uuid('call_id').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  kind: text('kind').$type<AiCallKind>().notNull(),
  provider: text('provider').notNull(),
  /** 'api' (HTTP), 'agent-cli' (headless claude -p), 'local' (offline). */
  via: text('via').notNull().default('api'),
  /** The model as the response names it (the requested one when no response came). */
  model: text('model').notNull(),
  modelRequested: text('model_requested').notNull(),
  feature: text('feature').notNull(),
  tenant: text('tenant'),
  actor: text('actor'),
  /** The agent (codename) whose run made the call; null outside agent runs. */
  agent: text('agent'),
  /** Decided at write time from the price row's `included` flag (offline: always 'allowance'). */
  bucket: text('bucket').$type<AiBucket>().notNull().default('premium'),
  attempt: integer('attempt').notNull().default(1),
  outcome: text('outcome').$type<AiOutcome>().notNull(),
  /** Machine-readable failure reason (http_500, timeout, insufficient_quota…), redacted. */
  error: text('error'),
  httpStatus: integer('http_status'),
  tokensIn: integer('tokens_in').notNull().default(0),
  tokensOut: integer('tokens_out').notNull().default(0),
  costUsd: numeric('cost_usd', { precision: 14, scale: 8, mode: 'number' }).notNull().default(0),
  /** 'price_table' (estimated from ai_prices), 'reported' (by the provider), 'none' (no price known). */
  costSource: text('cost_source').notNull().default('none'),
  durationMs: integer('duration_ms').notNull(),
  /** Providers of this call before this attempt, as provider or provider:reason. */
  failoverChain: text('failover_chain').array().notNull().default([]),
}, table => [
  index('ai_consumption_at_idx').on(table.at),
  index('ai_consumption_feature_at_idx').on(table.feature, table.at),
  index('ai_consumption_tenant_at_idx').on(table.tenant, table.at),
  index('ai_consumption_call_idx').on(table.callId),
  index('ai_consumption_actor_at_idx').on(table.actor, table.at),
  index('ai_consumption_agent_at_idx').on(table.agent, table.at),
  check('ai_consumption_bucket_check', sql`${table.bucket} in ('allowance', 'premium')`),
  check('ai_consumption_outcome_check', sql`${table.outcome} in ('ok', 'failed')`),
  check('ai_consumption_kind_check', sql`${table.kind} in ('generation', 'completion', 'embedding', 'agent')`),
])

export type AiRoutingRow = typeof aiRouting.$inferSelect
export type AiPrice = typeof aiPrices.$inferSelect
export type AiConsumptionRow = typeof aiConsumption.$inferSelect
