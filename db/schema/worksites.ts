// The worksites hierarchy (issue 16): project (per tenant, with its mission brief and
// repository) → chantier (work_chantiers, in work.ts: the classifier drafts them) → job →
// task (the iterations of a task, one per step, in work-iterations.ts); and the
// history of every status change and assignment (the timeline and the audit read it).
// Vocabularies live in layers/worksites/core/vocabulary.ts; the checks below repeat them.
// A task cannot sit under a job of another project: jobs and tasks carry their chantier and
// project, and composite foreign keys tie each (job, chantier, project) triple to its parent
// (ON UPDATE CASCADE: a chantier moved to another project takes its jobs and tasks along).
import { sql } from 'drizzle-orm'
import { bigserial, check, foreignKey, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core'
import { ownerColumns } from './owner'
import { workChantiers } from './work'

// The projects' table has a file of its own so that work.ts (chantiers) and this file do not
// import each other; re-exported here, where its importers find it.
export { workProjects, type WorkProject } from './work-projects'

const WORK_ITEM_STATUS_SQL = sql.raw(`('todo', 'in_progress', 'review', 'blocked', 'done', 'cancelled')`)
const SCOPE_SQL = sql.raw(`('code', 'ops', 'content', 'research', 'review')`)

export const workJobs = pgTable('work_jobs', {
  id: uuid('id').primaryKey().defaultRandom(),
  projectId: uuid('project_id').notNull(),
  chantierId: uuid('chantier_id').notNull(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  status: text('status').notNull().default('todo'),
  scope: text('scope').notNull().default('code'),
  position: integer('position').notNull().default(0),
  ...ownerColumns(),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  foreignKey({ name: 'work_jobs_chantier_project_fk', columns: [table.chantierId, table.projectId], foreignColumns: [workChantiers.id, workChantiers.projectId] })
    .onDelete('cascade').onUpdate('cascade'),
  unique('work_jobs_id_chantier_project_key').on(table.id, table.chantierId, table.projectId),
  index('work_jobs_chantier_idx').on(table.chantierId, table.position),
  index('work_jobs_project_idx').on(table.projectId, table.updatedAt),
  check('work_jobs_status_check', sql`${table.status} in ${WORK_ITEM_STATUS_SQL}`),
  check('work_jobs_scope_check', sql`${table.scope} in ${SCOPE_SQL}`),
  check('work_jobs_one_owner_check', sql`${table.ownerAgent} is null or ${table.ownerUserId} is null`),
])

export const workTasks = pgTable('work_tasks', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Denormalised from the job (kept equal by the composite key) for the board's query. */
  projectId: uuid('project_id').notNull(),
  chantierId: uuid('chantier_id').notNull(),
  jobId: uuid('job_id').notNull(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  status: text('status').notNull().default('todo'),
  scope: text('scope').notNull().default('code'),
  /** Order inside its board column (the project's tasks of one status), ascending. */
  position: integer('position').notNull().default(0),
  ...ownerColumns(),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  foreignKey({ name: 'work_tasks_job_chantier_project_fk', columns: [table.jobId, table.chantierId, table.projectId], foreignColumns: [workJobs.id, workJobs.chantierId, workJobs.projectId] })
    .onDelete('cascade').onUpdate('cascade'),
  // The board: one project's tasks, by column and position.
  index('work_tasks_board_idx').on(table.projectId, table.status, table.position),
  index('work_tasks_job_idx').on(table.jobId, table.position),
  check('work_tasks_status_check', sql`${table.status} in ${WORK_ITEM_STATUS_SQL}`),
  check('work_tasks_scope_check', sql`${table.scope} in ${SCOPE_SQL}`),
  check('work_tasks_position_check', sql`${table.position} >= 0`),
  check('work_tasks_one_owner_check', sql`${table.ownerAgent} is null or ${table.ownerUserId} is null`),
])

/** Every status change and assignment of a worksites entity, with who and why. Append-only by use. */
export const workTransitions = pgTable('work_transitions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  entity: text('entity').notNull(),
  entityId: uuid('entity_id').notNull(),
  kind: text('kind').notNull(),
  /** Status before and after (kind transition; from is null at creation). */
  fromStatus: text('from_status'),
  toStatus: text('to_status'),
  /** The new owner (kind assignment): { kind, codename | id } or null. */
  owner: jsonb('owner').$type<Record<string, unknown> | null>(),
  reason: text('reason'),
  actor: text('actor').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('work_transitions_entity_idx').on(table.entity, table.entityId, table.at),
  check('work_transitions_entity_check', sql`${table.entity} in ('project', 'chantier', 'job', 'task', 'run', 'question', 'negociation', 'conseil')`),
  check('work_transitions_kind_check', sql`${table.kind} in ('created', 'transition', 'assignment')`),
])

export type WorkJob = typeof workJobs.$inferSelect
export type WorkTask = typeof workTasks.$inferSelect
export type WorkTransition = typeof workTransitions.$inferSelect
