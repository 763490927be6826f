// The nights and the health of the studio (issue 20). The maintenance loop (05:00) will write
// the inspections, their drifting chapters, the coverage and one night row per night; the
// health report reads the latest of them and upserts one snapshot per date; memory metrics
// keep a 90-day series, one row per day.
import { sql } from 'drizzle-orm'
import { bigint, bigserial, check, date, index, integer, jsonb, pgTable, real, text, timestamp } from 'drizzle-orm/pg-core'

export const HEALTH_STATUSES = ['ok', 'warning', 'critical', 'unknown'] as const
export type HealthStatus = typeof HEALTH_STATUSES[number]
export const HEALTH_DIMENSIONS = ['proprioception', 'coverage', 'debt', 'learning', 'automations'] as const
export type HealthDimensionKey = typeof HEALTH_DIMENSIONS[number]

export interface HealthDimension {
  key: HealthDimensionKey
  /** 0–100, 100 healthy; null when the dimension could not be measured. */
  score: number | null
  status: HealthStatus
  summary: string
}

/** One drift inspection of the documentation tree against the code (initial or re-inspection). */
export const maintInspections = pgTable('maint_inspections', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  night: date('night').notNull(),
  /** `initial` (step 1 of the loop) or `reinspection` (step 7, after regeneration). */
  phase: text('phase').notNull().default('initial'),
  chaptersTotal: integer('chapters_total').notNull(),
  chaptersDrifted: integer('chapters_drifted').notNull(),
  deadReferences: integer('dead_references').notNull(),
  /** 0–100, share of chapters without drift. */
  score: real('score').notNull(),
  inspectedAt: timestamp('inspected_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('maint_inspections_inspected_idx').on(table.inspectedAt),
  check('maint_inspections_phase_check', sql`${table.phase} in ('initial', 'reinspection')`),
  check('maint_inspections_counts_check', sql`${table.chaptersTotal} >= 0 and ${table.chaptersDrifted} between 0 and ${table.chaptersTotal} and ${table.deadReferences} >= 0`),
])

/** The chapters of one inspection that drift: their dead references and drift score. */
export const maintDriftChapters = pgTable('maint_drift_chapters', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  inspectionId: bigint('inspection_id', { mode: 'number' }).notNull().references(() => maintInspections.id, { onDelete: 'cascade' }),
  chapter: text('chapter').notNull(),
  deadReferences: jsonb('dead_references').$type<string[]>().notNull().default([]),
  /** 0–100, 100 = the chapter no longer matches the code at all. */
  score: real('score').notNull(),
}, table => [index('maint_drift_chapters_inspection_idx').on(table.inspectionId)])

/** One coverage measure: code units that no chapter references. */
export const maintCoverage = pgTable('maint_coverage', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  night: date('night').notNull(),
  unitsTotal: integer('units_total').notNull(),
  uncoveredUnits: jsonb('uncovered_units').$type<string[]>().notNull().default([]),
  measuredAt: timestamp('measured_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [index('maint_coverage_measured_idx').on(table.measuredAt)])

export interface MaintNightStep { step: string, exitCode: number | null, durationMs: number | null, summary: string }

/** The morning report: one row per night of the loop with each step's code (idempotent on night). */
export const maintNights = pgTable('maint_nights', {
  night: date('night').primaryKey(),
  exitCode: integer('exit_code'),
  steps: jsonb('steps').$type<MaintNightStep[]>().notNull().default([]),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  endedAt: timestamp('ended_at', { withTimezone: true }),
})

/** One health snapshot per date (upsert on date): the five dimensions and the care note. */
export const healthReports = pgTable('health_reports', {
  reportDate: date('report_date').primaryKey(),
  status: text('status').$type<HealthStatus>().notNull(),
  score: real('score'),
  dimensions: jsonb('dimensions').$type<HealthDimension[]>().notNull(),
  /** Nightingale's care note (≤ 3 sentences, English); empty when the model was down or --no-voice. */
  careNote: text('care_note').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  check('health_reports_status_check', sql`${table.status} in ('ok', 'warning', 'critical', 'unknown')`),
])

/** The memory's daily measures (90 days kept). */
export const memMetrics = pgTable('mem_metrics', {
  day: date('day').primaryKey(),
  notes: integer('notes').notNull(),
  bytes: bigint('bytes', { mode: 'number' }).notNull(),
  indexLines: integer('index_lines').notNull(),
  deadLinks: integer('dead_links').notNull(),
  orphans: integer('orphans').notNull(),
  lessons: integer('lessons').notNull(),
  embeddings: integer('embeddings').notNull(),
  recalls: bigint('recalls', { mode: 'number' }).notNull(),
  recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
})

export type HealthReport = typeof healthReports.$inferSelect
export type MaintNight = typeof maintNights.$inferSelect
export type MemMetrics = typeof memMetrics.$inferSelect
