// A person's instructions (issue 19 Deliver 7, seed 003 I6) and the models each surface may
// use (Deliver 8, I12). Instructions are Markdown documents a person writes in the hub:
// several per person, one active at a time (a partial unique index), every save a new
// version row (none lost). The agent may only PROPOSE a change (a full body and a unified
// diff against the version it read); the person applies or rejects it. A custom agent
// (issue 21) will point at an instruction document by its id.
// Models by surface: the founder's ordered list of allowed models per surface; a person's
// choice (a model of the list, or Auto) is kept per person and surface.
import { sql } from 'drizzle-orm'
import { bigserial, boolean, check, foreignKey, index, integer, pgTable, primaryKey, serial, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { agentRuns } from './agent-runs'

export const agentInstructions = pgTable('agent_instructions', {
  id: uuid('id').primaryKey().defaultRandom(),
  ownerEmail: text('owner_email').notNull(),
  title: text('title').notNull(),
  active: boolean('active').notNull().default(false),
  archivedAt: timestamp('archived_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  // One active document per person: the database refuses a second one.
  uniqueIndex('agent_instructions_one_active_key').on(table.ownerEmail).where(sql`active`),
  index('agent_instructions_owner_idx').on(table.ownerEmail, table.updatedAt),
  check('agent_instructions_active_not_archived', sql`not (${table.active} and ${table.archivedAt} is not null)`),
  check('agent_instructions_title_check', sql`length(${table.title}) between 1 and 200`),
])

export const agentInstructionVersions = pgTable('agent_instruction_versions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  instructionId: uuid('instruction_id').notNull().references(() => agentInstructions.id, { onDelete: 'cascade' }),
  version: integer('version').notNull(),
  body: text('body').notNull(),
  /** Who saved it (the person, or the person applying an agent's proposal). */
  author: text('author').notNull(),
  note: text('note'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  unique('agent_instruction_versions_key').on(table.instructionId, table.version),
  check('agent_instruction_versions_version_check', sql`${table.version} >= 1`),
  check('agent_instruction_versions_body_check', sql`length(${table.body}) <= 40000`),
])

export const INSTRUCTION_PROPOSAL_STATUSES = ['pending', 'applied', 'rejected'] as const
export type InstructionProposalStatus = typeof INSTRUCTION_PROPOSAL_STATUSES[number]

export const agentInstructionProposals = pgTable('agent_instruction_proposals', {
  id: uuid('id').primaryKey().defaultRandom(),
  instructionId: uuid('instruction_id').notNull().references(() => agentInstructions.id, { onDelete: 'cascade' }),
  /** The version the agent read: applying is refused (409) once the document moved on. */
  baseVersion: integer('base_version').notNull(),
  body: text('body').notNull(),
  /** Unified diff of the base version's body against the proposed body. */
  diff: text('diff').notNull(),
  reason: text('reason').notNull().default(''),
  runId: uuid('run_id'),
  proposedBy: text('proposed_by').notNull(),
  status: text('status').notNull().default('pending'),
  decidedBy: text('decided_by'),
  decidedAt: timestamp('decided_at', { withTimezone: true }),
  appliedVersion: integer('applied_version'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  foreignKey({ name: 'agent_instruction_proposals_run_fk', columns: [table.runId], foreignColumns: [agentRuns.id] }).onDelete('set null'),
  index('agent_instruction_proposals_doc_idx').on(table.instructionId, table.status),
  check('agent_instruction_proposals_status_check', sql`${table.status} in ('pending', 'applied', 'rejected')`),
  check('agent_instruction_proposals_body_check', sql`length(${table.body}) <= 40000`),
])

/** Where a model list applies: the personal agent (hub_chat) and custom agents. */
export const MODEL_SURFACES = ['hub_chat', 'custom_agent'] as const
export type ModelSurface = typeof MODEL_SURFACES[number]

export const agentsSurfaceModels = pgTable('agents_surface_models', {
  id: serial('id').primaryKey(),
  surface: text('surface').notNull(),
  provider: text('provider').notNull(),
  model: text('model').notNull(),
  /** The founder's order: Auto tries the models in it (offline last). */
  position: integer('position').notNull(),
  /** false: withdrawn (kept so a person's stored choice can be told it was withdrawn). */
  enabled: boolean('enabled').notNull().default(true),
  updatedBy: text('updated_by').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  unique('agents_surface_models_key').on(table.surface, table.provider, table.model),
  check('agents_surface_models_surface_check', sql`${table.surface} in ('hub_chat', 'custom_agent')`),
  check('agents_surface_models_provider_check', sql`${table.provider} in ('mistral', 'anthropic', 'openai', 'openai-compat', 'offline')`),
])

/** A person's model choice per surface (provider and model null: Auto). */
export const agentModelChoices = pgTable('agent_model_choices', {
  email: text('email').notNull(),
  surface: text('surface').notNull(),
  provider: text('provider'),
  model: text('model'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  primaryKey({ columns: [table.email, table.surface] }),
  check('agent_model_choices_pair_check', sql`(${table.provider} is null) = (${table.model} is null)`),
])
