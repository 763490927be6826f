// The learning family (learn_*). The Memory issue created the minimal tables the vector
// sync indexes (scars and victories in the lessons registry, doctrines, drills, procedures);
// the Learning issue extends them (suggestions, audit, classifier columns, …).
import { bigserial, boolean, check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'

/** Lesson kinds (§4.1): failures (scars), successes (victories) and legacy categories. */
export const LEARN_LESSON_KINDS = ['failure', 'success', 'convention', 'pattern', 'bug'] as const
export type LearnLessonKind = typeof LEARN_LESSON_KINDS[number]

/**
 * The lessons registry, single source of truth of capitalisation: a `success` is a victory,
 * every other kind a scar. Importance (0–10) weights recall; the recall counter and the
 * last-recalled time are the anti-forgetting record; an archived lesson is invisible to recall.
 */
export const learnLessons = pgTable('learn_lessons', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').$type<LearnLessonKind>().notNull().default('failure'),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  /** The lesson: what was added to prevent recurrence, or the pattern to reproduce. */
  checkAdded: text('check_added').notNull().default(''),
  /** 0–10, set by a model at recording time or by the nightly run; null until then. */
  importance: integer('importance'),
  learnable: boolean('learnable').notNull().default(false),
  tags: text('tags').array().notNull().default([]),
  /** The agent the lesson belongs to (codename); null for a global lesson. */
  agent: text('agent'),
  /** The tenant (clients.id) the lesson was learnt for; null for a studio-wide lesson. */
  tenantId: uuid('tenant_id'),
  /** The spawn the lesson came from (atlas_spawns.id); null for one recorded by a person. */
  sourceSpawnId: uuid('source_spawn_id'),
  /** Who recorded it: the automate's name or the person's e-mail. */
  recordedBy: text('recorded_by'),
  recallCount: integer('recall_count').notNull().default(0),
  lastRecalledAt: timestamp('last_recalled_at', { withTimezone: true }),
  archivedAt: timestamp('archived_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('learn_lessons_kind_idx').on(table.kind),
  index('learn_lessons_source_spawn_idx').on(table.sourceSpawnId),
  // The later importance run looks for the lessons still unscored.
  index('learn_lessons_unscored_idx').on(table.createdAt).where(sql`importance is null and archived_at is null`),
  check('learn_lessons_kind_check', sql`${table.kind} in ('failure', 'success', 'convention', 'pattern', 'bug')`),
  check('learn_lessons_importance_check', sql`${table.importance} is null or ${table.importance} between 0 and 10`),
  check('learn_lessons_recall_count_check', sql`${table.recallCount} >= 0`),
])

/** Doctrine rules; only active ones are indexed. */
export const learnDoctrines = pgTable('learn_doctrines', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  title: text('title').notNull(),
  body: text('body').notNull().default(''),
  active: boolean('active').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

/** Training scenarios. */
export const learnDrills = pgTable('learn_drills', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  title: text('title').notNull(),
  scenario: text('scenario').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

/** Operational procedures (protocols); only active ones are indexed. */
export const learnProcedures = pgTable('learn_procedures', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  title: text('title').notNull(),
  body: text('body').notNull().default(''),
  active: boolean('active').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

export type LearnLesson = typeof learnLessons.$inferSelect
export type LearnDoctrine = typeof learnDoctrines.$inferSelect
export type LearnDrill = typeof learnDrills.$inferSelect
export type LearnProcedure = typeof learnProcedures.$inferSelect
