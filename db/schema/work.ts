// The work registries an Atlas classification materialises into: runs, chantier drafts,
// questions, négociations and conseils. Minimal for now (the worksites domain will grow
// them): each row knows the message that created it (unique: one record per message and
// registry), its tenant, its status, and how many messages of the thread updated it.
import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { atlasMessages } from './atlas'
import { clients } from './clients'
import { ownerColumns } from './owner'
import { workProjects } from './work-projects'

function common() {
  return {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The message that created the record (one record per message and registry). */
    sourceMessageId: bigint('source_message_id', { mode: 'number' }).notNull().references(() => atlasMessages.id),
    /** The last message of the thread that updated it. */
    lastMessageId: bigint('last_message_id', { mode: 'number' }).notNull().references(() => atlasMessages.id),
    messageCount: integer('message_count').notNull().default(1),
    tenantId: uuid('tenant_id').references(() => clients.id),
    title: text('title').notNull(),
    requesterEmail: text('requester_email'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  }
}

/** What a person did with a registry record (issue 16, Deliver 5): the answer, the advice, the outcome's note. */
function resolution() {
  return {
    /** The answer (question), the advice (conseil), the outcome's or the closing note (négociation, run). */
    resolution: text('resolution'),
    resolvedBy: text('resolved_by'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    /** Why it was cancelled (the classifier's calibration counts cancelled records). */
    statusReason: text('status_reason'),
  }
}

/** Atomic tasks executable in one command. */
export const workRuns = pgTable('work_runs', {
  ...common(),
  request: text('request').notNull(),
  status: text('status').notNull().default('open'),
  ...resolution(),
}, table => [
  uniqueIndex('work_runs_source_message_key').on(table.sourceMessageId),
  index('work_runs_tenant_idx').on(table.tenantId, table.createdAt),
  check('work_runs_status_check', sql`${table.status} in ('open', 'in_progress', 'done', 'cancelled')`),
])

/**
 * Structured multi-step missions: drafted by the classifier from a message, promoted by a
 * person into a planned chantier of a project (with its jobs), or rejected with a reason.
 * One created in the hub has no message (source and last message null).
 */
export const workChantiers = pgTable('work_chantiers', {
  ...common(),
  sourceMessageId: bigint('source_message_id', { mode: 'number' }).references(() => atlasMessages.id),
  lastMessageId: bigint('last_message_id', { mode: 'number' }).references(() => atlasMessages.id),
  /** The project it belongs to; null while it is a draft nobody has placed. */
  projectId: uuid('project_id').references(() => workProjects.id, { onDelete: 'cascade' }),
  brief: text('brief').notNull(),
  status: text('status').notNull().default('draft'),
  /** Why it was rejected or cancelled. */
  statusReason: text('status_reason'),
  ...ownerColumns(),
}, table => [
  uniqueIndex('work_chantiers_source_message_key').on(table.sourceMessageId),
  index('work_chantiers_tenant_idx').on(table.tenantId, table.createdAt),
  index('work_chantiers_project_idx').on(table.projectId, table.status),
  // Referenced by work_jobs (chantier, project): a job lives in its chantier's project.
  unique('work_chantiers_id_project_key').on(table.id, table.projectId),
  check('work_chantiers_status_check', sql`${table.status} in ('draft', 'planned', 'active', 'done', 'cancelled', 'rejected')`),
  check('work_chantiers_one_owner_check', sql`${table.ownerAgent} is null or ${table.ownerUserId} is null`),
])

/** Requests for an opinion or analysis, answered as a draft. */
export const workQuestions = pgTable('work_questions', {
  ...common(),
  question: text('question').notNull(),
  /** The latest prepared reply of the thread when the question was created or updated. */
  draftAnswer: text('draft_answer'),
  draftId: bigint('draft_id', { mode: 'number' }),
  status: text('status').notNull().default('open'),
  ...resolution(),
}, table => [
  uniqueIndex('work_questions_source_message_key').on(table.sourceMessageId),
  index('work_questions_tenant_idx').on(table.tenantId, table.createdAt),
  check('work_questions_status_check', sql`${table.status} in ('open', 'answered', 'cancelled')`),
])

/** Inbound commercial requests (prospects, quotes): the commercial registry. */
export const workNegociations = pgTable('work_negociations', {
  ...common(),
  prospectDomain: text('prospect_domain'),
  summary: text('summary').notNull(),
  status: text('status').notNull().default('new'),
  ...resolution(),
}, table => [
  uniqueIndex('work_negociations_source_message_key').on(table.sourceMessageId),
  check('work_negociations_status_check', sql`${table.status} in ('new', 'in_progress', 'won', 'lost', 'cancelled')`),
])

/** Requests for an opinion or expertise on an existing external item. */
export const workConseils = pgTable('work_conseils', {
  ...common(),
  request: text('request').notNull(),
  status: text('status').notNull().default('open'),
  ...resolution(),
}, table => [
  uniqueIndex('work_conseils_source_message_key').on(table.sourceMessageId),
  check('work_conseils_status_check', sql`${table.status} in ('open', 'given', 'cancelled')`),
])

/** One related entry the pre-creation recall found (memory's RecallHit, trimmed for display). */
export interface WorkRecallHit {
  rank: number
  sourceType: string
  sourceId: string
  title: string
  snippet: string
  score: number
}

/**
 * The pre-creation recall of a work record (issue 15, Deliver 4): the entries of the memory
 * that resemble the record, found when it was created and shown before a person confirms it.
 * Keyed by registry and record (the five registries share it); one row per record, replaced
 * when the record is re-activated.
 */
export const workRecalls = pgTable('work_recalls', {
  kind: text('kind').notNull(),
  recordId: uuid('record_id').notNull(),
  query: text('query').notNull(),
  hits: jsonb('hits').$type<WorkRecallHit[]>().notNull().default([]),
  /** hybrid, semantic or lexical; null when the recall failed. */
  modeUsed: text('mode_used'),
  /** Why nothing was recalled (embedding and search down, budget exceeded). */
  error: text('error'),
  recalledAt: timestamp('recalled_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  primaryKey({ columns: [table.kind, table.recordId] }),
  check('work_recalls_kind_check', sql`${table.kind} in ('run', 'chantier', 'question', 'negociation', 'conseil')`),
])

export type WorkRecall = typeof workRecalls.$inferSelect
export type WorkRun = typeof workRuns.$inferSelect
export type WorkChantier = typeof workChantiers.$inferSelect
export type WorkQuestion = typeof workQuestions.$inferSelect
export type WorkNegociation = typeof workNegociations.$inferSelect
export type WorkConseil = typeof workConseils.$inferSelect
