// The learning family (learn_*). The Memory issue created the minimal tables the vector
// sync indexes (scars and victories in the lessons registry, doctrines, drills, procedures);
// the Learning issue extends them (suggestions, audit, classifier columns, …).
import { bigint, bigserial, boolean, check, index, integer, jsonb, pgTable, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
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
  /** The project (work_projects.id) it was learnt on; null when none. */
  projectId: uuid('project_id'),
  /** The spawn the lesson came from (atlas_spawns.id); null for one recorded by a person. */
  sourceSpawnId: uuid('source_spawn_id'),
  /** Who recorded it: the automate's name or the person's e-mail. */
  recordedBy: text('recorded_by'),
  recallCount: integer('recall_count').notNull().default(0),
  lastRecalledAt: timestamp('last_recalled_at', { withTimezone: true }),
  archivedAt: timestamp('archived_at', { withTimezone: true }),
  // The scar classifier's qualification (§4.6). The learnable verdict is NOT written to
  // `learnable`: it is the `learnable:true|false` prefix of the rationale, as the seed documents.
  errorType: text('error_type'),
  /** 1 (cosmetic) – 5 (critical), re-estimated by the classifier. */
  severity: integer('severity'),
  classifierConfidence: real('classifier_confidence'),
  classifierRationale: text('classifier_rationale'),
  classifierTags: text('classifier_tags').array().notNull().default([]),
  /** Set when qualified, or when the model's answer was refused (then classifier_error says why). */
  classifiedAt: timestamp('classified_at', { withTimezone: true }),
  classifierError: text('classifier_error'),
  classifyAttempts: integer('classify_attempts').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('learn_lessons_kind_idx').on(table.kind),
  index('learn_lessons_tenant_idx').on(table.tenantId),
  index('learn_lessons_source_spawn_idx').on(table.sourceSpawnId),
  // The later importance run looks for the lessons still unscored.
  index('learn_lessons_unscored_idx').on(table.createdAt).where(sql`importance is null and archived_at is null`),
  check('learn_lessons_kind_check', sql`${table.kind} in ('failure', 'success', 'convention', 'pattern', 'bug')`),
  check('learn_lessons_importance_check', sql`${table.importance} is null or ${table.importance} between 0 and 10`),
  check('learn_lessons_recall_count_check', sql`${table.recallCount} >= 0`),
  check('learn_lessons_severity_check', sql`${table.severity} is null or ${table.severity} between 1 and 5`),
  check('learn_lessons_confidence_check', sql`${table.classifierConfidence} is null or ${table.classifierConfidence} between 0 and 1`),
])

/** The six destinations of a suggestion (§4.2). */
export const LEARN_DESTINATIONS = ['directive', 'hooks', 'reflex', 'inbox', 'skill', 'project'] as const
export type LearnDestination = typeof LEARN_DESTINATIONS[number]
/** pending → applied (as proposed) | modified (applied after a person's edit) | refused. */
export const LEARN_SUGGESTION_STATUSES = ['pending', 'applied', 'modified', 'refused'] as const
export type LearnSuggestionStatus = typeof LEARN_SUGGESTION_STATUSES[number]

/**
 * The suggestion log: one proposal per lesson (the unique lesson id makes the engine
 * idempotent), waiting for a person. Nothing here is ever applied without a learn_audit row.
 */
export const learnSuggestions = pgTable('learn_suggestions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  lessonId: bigint('lesson_id', { mode: 'number' }).notNull().references(() => learnLessons.id, { onDelete: 'cascade' }),
  destination: text('destination').$type<LearnDestination>().notNull(),
  suggestion: text('suggestion').notNull(),
  diffBefore: text('diff_before').notNull().default(''),
  diffAfter: text('diff_after').notNull().default(''),
  status: text('status').$type<LearnSuggestionStatus>().notNull().default('pending'),
  /** The lesson's agent and tenant, copied so the feed filters without a join. */
  agent: text('agent'),
  tenantId: uuid('tenant_id'),
  provider: text('provider'),
  model: text('model'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  decidedAt: timestamp('decided_at', { withTimezone: true }),
  decidedBy: text('decided_by'),
  /** Where applying wrote it (a reflex line number, a vault path, an agent's key checks). */
  appliedTarget: text('applied_target'),
}, table => [
  uniqueIndex('learn_suggestions_lesson_uq').on(table.lessonId),
  index('learn_suggestions_status_idx').on(table.status, table.createdAt),
  check('learn_suggestions_destination_check', sql`${table.destination} in ('directive', 'hooks', 'reflex', 'inbox', 'skill', 'project')`),
  check('learn_suggestions_status_check', sql`${table.status} in ('pending', 'applied', 'modified', 'refused')`),
  check('learn_suggestions_decided_check', sql`(${table.status} = 'pending') = (${table.decidedAt} is null)`),
])

/** The learning audit log: append-only trace of every human decision on the loop's proposals. */
export const learnAudit = pgTable('learn_audit', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** suggestion (this issue); debrief and skill_proposal for the loop's other proposals. */
  subjectKind: text('subject_kind').notNull(),
  subjectId: text('subject_id').notNull(),
  /** applied, modified, refused. */
  action: text('action').notNull(),
  operator: text('operator').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  /** The diff as decided (before, after, destination, where it was written). */
  diff: jsonb('diff').$type<Record<string, unknown>>().notNull().default({}),
}, table => [
  index('learn_audit_subject_idx').on(table.subjectKind, table.subjectId),
  index('learn_audit_at_idx').on(table.at),
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
export type LearnSuggestion = typeof learnSuggestions.$inferSelect
export type LearnAuditEntry = typeof learnAudit.$inferSelect
export type LearnDoctrine = typeof learnDoctrines.$inferSelect
export type LearnDrill = typeof learnDrills.$inferSelect
export type LearnProcedure = typeof learnProcedures.$inferSelect

/**
 * What the nightly consolidation already did, by feature and fingerprint (a repeated-scar
 * cluster, a day's journal): a second night finds the mark and does not draft it again.
 */
export const learnNightlyMarks = pgTable('learn_nightly_marks', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  feature: text('feature').notNull(),
  fingerprint: text('fingerprint').notNull(),
  /** What the mark produced (the draft's vault path), for the report and the hub. */
  ref: text('ref').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [uniqueIndex('learn_nightly_marks_key').on(table.feature, table.fingerprint)])

export type LearnNightlyMark = typeof learnNightlyMarks.$inferSelect

export const OBSOLESCENCE_VERDICTS = ['still_relevant', 'possibly_obsolete', 'archive_recommended'] as const
export type ObsolescenceVerdict = typeof OBSOLESCENCE_VERDICTS[number]

/**
 * The obsolescence log (nightly consolidation, feature 8): one verdict per inactive project
 * per night, with the signals it was computed from. The project itself is never archived by
 * it: a person decides from the morning mail.
 */
export const learnObsolescenceLog = pgTable('learn_obsolescence_log', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  projectId: uuid('project_id').notNull(),
  /** The night's UTC date (YYYY-MM-DD): a re-run of the same night updates its row. */
  day: text('day').notNull(),
  verdict: text('verdict').notNull(),
  signals: jsonb('signals').$type<Record<string, unknown>>().notNull().default({}),
  reason: text('reason').notNull().default(''),
  /** Who gave the verdict: `rules`, or the model's routing key. */
  source: text('source').notNull().default('rules'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('learn_obsolescence_log_key').on(table.projectId, table.day),
  check('learn_obsolescence_log_verdict_check', sql`${table.verdict} in ('still_relevant', 'possibly_obsolete', 'archive_recommended')`),
])

/**
 * The persona drift history (feature 9, the 1st of the month): each agent's distance from its
 * seeded reference, a score in [0, 1], one row per agent per month.
 */
export const learnPersonaDrift = pgTable('learn_persona_drift', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  agent: text('agent').notNull(),
  /** YYYY-MM. */
  month: text('month').notNull(),
  score: real('score').notNull(),
  /** Per field: its distance in [0, 1] (only the fields that moved). */
  fields: jsonb('fields').$type<Record<string, number>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('learn_persona_drift_key').on(table.agent, table.month),
  check('learn_persona_drift_score_check', sql`${table.score} >= 0 and ${table.score} <= 1`),
])

export type LearnObsolescenceEntry = typeof learnObsolescenceLog.$inferSelect
export type LearnPersonaDrift = typeof learnPersonaDrift.$inferSelect
