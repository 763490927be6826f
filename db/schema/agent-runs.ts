// Agent runs as first-class rows (issue 19, seed 003 P5 / I10): one row per run of the agent
// engine (its context, trigger, the model that actually answered, status, tokens, cost from
// the ledger, error, parent run and rerun-of), one row per step (the model's thought, a tool
// call with its input and truncated output, the sources read, the skills applied, a write
// with its undo snapshot), the approvals an EXTERNAL_WRITE waits for (72 h, seed §16.3) and
// the standing approvals of an agent (granted and revoked, never deleted: the audit trail).
// Vocabularies live in layers/agents/core/engine/vocabulary.ts; the checks repeat them.
import { sql } from 'drizzle-orm'
import { bigint, bigserial, check, foreignKey, index, integer, jsonb, numeric, pgTable, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core'

export const agentRuns = pgTable('agent_runs', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Where the run was asked from (hub chat, API, automate). */
  surface: text('surface').notNull(),
  /** interactive (a person waits), autonomous (a trigger), rerun. */
  trigger: text('trigger').notNull(),
  /** The agent (codename; `personal` for a person's own agent). */
  agent: text('agent').notNull(),
  /** The person the run acts for (their permissions in the `user` regime) and the agent's owner. */
  actingUserId: uuid('acting_user_id'),
  actingEmail: text('acting_email').notNull(),
  actingRole: text('acting_role').notNull(),
  ownerEmail: text('owner_email').notNull(),
  regime: text('regime').notNull(),
  /** The question or mission the run started from. */
  request: text('request').notNull(),
  /** The typed run context as started (instructions, forced skills, sources, model request, budget). */
  context: jsonb('context').$type<Record<string, unknown>>().notNull(),
  /** The system prompt's layers in order, each recorded (layer, source, characters, text). */
  promptLayers: jsonb('prompt_layers').$type<unknown[]>().notNull().default([]),
  /** The conversation so far (a paused run resumes from it). */
  conversation: jsonb('conversation').$type<unknown[]>().notNull().default([]),
  status: text('status').notNull().default('running'),
  answer: text('answer'),
  error: text('error'),
  /** The provider and model that actually answered (pinned after the first turn). */
  provider: text('provider'),
  model: text('model'),
  /** Why the model differs from the person's choice (e.g. "model X was withdrawn, Auto used"). */
  modelNote: text('model_note'),
  iterations: integer('iterations').notNull().default(0),
  tokensIn: integer('tokens_in').notNull().default(0),
  tokensOut: integer('tokens_out').notNull().default(0),
  /** Summed from ai_consumption (the ledger rows of the run's model calls). */
  costUsd: numeric('cost_usd', { precision: 14, scale: 8, mode: 'number' }).notNull().default(0),
  parentRunId: uuid('parent_run_id'),
  rerunOf: uuid('rerun_of'),
  /** The hub chat's conversation this run is a turn of (the person's own; null outside the chat). */
  conversationId: uuid('conversation_id'),
  /** The hub process driving the run (host, pid): a run whose process is gone is swept to failed. */
  runnerHost: text('runner_host'),
  runnerPid: integer('runner_pid'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  endedAt: timestamp('ended_at', { withTimezone: true }),
}, table => [
  foreignKey({ name: 'agent_runs_parent_fk', columns: [table.parentRunId], foreignColumns: [table.id] }).onDelete('set null'),
  foreignKey({ name: 'agent_runs_rerun_of_fk', columns: [table.rerunOf], foreignColumns: [table.id] }).onDelete('set null'),
  index('agent_runs_person_idx').on(table.actingEmail, table.createdAt),
  index('agent_runs_status_idx').on(table.status),
  index('agent_runs_conversation_idx').on(table.conversationId, table.createdAt),
  check('agent_runs_status_check', sql`${table.status} in ('running', 'awaiting_approval', 'succeeded', 'failed', 'stopped')`),
  check('agent_runs_regime_check', sql`${table.regime} in ('user', 'allowlist')`),
  check('agent_runs_trigger_check', sql`${table.trigger} in ('interactive', 'autonomous', 'rerun')`),
  check('agent_runs_counts_check', sql`${table.tokensIn} >= 0 and ${table.tokensOut} >= 0 and ${table.iterations} >= 0`),
])

export const agentRunSteps = pgTable('agent_run_steps', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  runId: uuid('run_id').notNull().references(() => agentRuns.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  /** model (a turn: thought, tool calls asked) or tool (one call: policy, input, output). */
  kind: text('kind').notNull(),
  thought: text('thought'),
  tool: text('tool'),
  toolCallId: text('tool_call_id'),
  toolClass: text('tool_class'),
  input: jsonb('input').$type<unknown>(),
  /** The tool's output as the model saw it, truncated. */
  output: text('output'),
  status: text('status').notNull(),
  error: text('error'),
  sources: jsonb('sources').$type<unknown[]>().notNull().default([]),
  skills: jsonb('skills').$type<string[]>().notNull().default([]),
  /** A write: what it created or changed and the snapshot its undo applies (null: not undoable). */
  write: jsonb('write').$type<Record<string, unknown>>(),
  undoneAt: timestamp('undone_at', { withTimezone: true }),
  undoneBy: text('undone_by'),
  /** The ledger's call id of a model turn (its cost is in ai_consumption). */
  callId: uuid('call_id'),
  provider: text('provider'),
  model: text('model'),
  tokensIn: integer('tokens_in').notNull().default(0),
  tokensOut: integer('tokens_out').notNull().default(0),
  durationMs: integer('duration_ms').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  unique('agent_run_steps_run_seq_key').on(table.runId, table.seq),
  index('agent_run_steps_call_idx').on(table.callId),
  check('agent_run_steps_kind_check', sql`${table.kind} in ('model', 'tool', 'skills')`),
  check('agent_run_steps_status_check', sql`${table.status} in ('ok', 'error', 'denied', 'awaiting_approval', 'rejected', 'expired')`),
  check('agent_run_steps_tool_class_check', sql`${table.toolClass} is null or ${table.toolClass} in ('READ', 'WRITE', 'DESTRUCTIVE', 'EXTERNAL_WRITE')`),
])

export const agentApprovals = pgTable('agent_approvals', {
  id: uuid('id').primaryKey().defaultRandom(),
  runId: uuid('run_id').notNull().references(() => agentRuns.id, { onDelete: 'cascade' }),
  stepId: bigint('step_id', { mode: 'number' }).notNull().references(() => agentRunSteps.id, { onDelete: 'cascade' }),
  agent: text('agent').notNull(),
  tool: text('tool').notNull(),
  /** The exact payload the tool will run with once approved (shown to the person asked). */
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  /** Who is asked: the acting person (interactive) or the agent's owner (autonomous). */
  askedOf: text('asked_of').notNull(),
  status: text('status').notNull().default('pending'),
  requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  decidedAt: timestamp('decided_at', { withTimezone: true }),
  decidedBy: text('decided_by'),
  note: text('note'),
}, table => [
  uniqueIndex('agent_approvals_step_key').on(table.stepId),
  index('agent_approvals_pending_idx').on(table.askedOf, table.status),
  check('agent_approvals_status_check', sql`${table.status} in ('pending', 'approved', 'denied', 'expired')`),
  check('agent_approvals_expiry_check', sql`${table.expiresAt} > ${table.requestedAt}`),
])

export const agentStandingApprovals = pgTable('agent_standing_approvals', {
  id: uuid('id').primaryKey().defaultRandom(),
  agent: text('agent').notNull(),
  tool: text('tool').notNull(),
  grantedBy: text('granted_by').notNull(),
  grantedAt: timestamp('granted_at', { withTimezone: true }).notNull().defaultNow(),
  revokedBy: text('revoked_by'),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
}, table => [
  // One live grant per agent and tool; revoked ones stay (the audit trail).
  uniqueIndex('agent_standing_approvals_live_key').on(table.agent, table.tool).where(sql`revoked_at is null`),
])
