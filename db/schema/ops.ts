import { bigserial, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { clients } from './clients'

/** The automation registry; `active = false` is the circuit breaker (the seed's `active = 0`). */
export const opsAutomations = pgTable('ops_automations', {
  name: text('name').primaryKey(),
  schedule: text('schedule').notNull(),
  scope: text('scope').notNull(),
  description: text('description').notNull().default(''),
  /** The crontab line's flags: a founder's "run now" runs it as the night does. */
  args: jsonb('args').$type<string[]>().notNull().default([]),
  /** The automate takes --dry-run (reads and reports, writes nothing): offered before a real run. */
  dryRun: boolean('dry_run').notNull().default(false),
  active: boolean('active').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: text('updated_by'),
  /** The tenant an automation works for; null for the studio's own (only those count in the health report). */
  tenantId: uuid('tenant_id').references(() => clients.id),
})

export const CRON_RUN_STATUSES = ['running', 'ok', 'not_configured', 'failed', 'skipped'] as const
export type CronRunStatus = typeof CRON_RUN_STATUSES[number]

/** One row per automate execution, including the ones skipped by the breaker or a held lease. */
export const opsCronRuns = pgTable('ops_cron_runs', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  automation: text('automation').notNull(),
  status: text('status').$type<CronRunStatus>().notNull(),
  reason: text('reason'),
  args: jsonb('args').$type<string[]>().notNull().default([]),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  endedAt: timestamp('ended_at', { withTimezone: true }),
  exitCode: integer('exit_code'),
  durationMs: integer('duration_ms'),
  outputTail: text('output_tail'),
}, table => [
  index('ops_cron_runs_automation_started_idx').on(table.automation, table.startedAt),
  check('ops_cron_runs_status_check', sql`${table.status} in ('running', 'ok', 'not_configured', 'failed', 'skipped')`),
])

/**
 * Lease locks. Advisory locks are not exclusive on the embedded server (all connections
 * share one backend), so a lock is a row claimed by one atomic statement and heartbeated.
 */
export const opsLocks = pgTable('ops_locks', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
})

/** Alerts raised by guardians; one row per (kind, subject, holder) so a stuck lease alerts once. */
export const opsAlerts = pgTable('ops_alerts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').notNull(),
  subject: text('subject').notNull(),
  holder: text('holder').notNull().default(''),
  message: text('message').notNull(),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  raisedAt: timestamp('raised_at', { withTimezone: true }).notNull().defaultNow(),
  notifiedAt: timestamp('notified_at', { withTimezone: true }),
  resolvedAt: timestamp('resolved_at', { withTimezone: true }),
}, table => [uniqueIndex('ops_alerts_kind_subject_holder_key').on(table.kind, table.subject, table.holder)])

/**
 * The spawn workers, one row per worker process: where it runs, which version, how many
 * spawns it holds, its last heartbeat. A worker that stops heartbeating without having said
 * it stopped is a host gone silent (the health page shows it).
 */
export const opsWorkers = pgTable('ops_workers', {
  id: text('id').primaryKey(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  version: text('version').notNull(),
  /** `drain` (the crontab's run-then-exit worker) or `forever` (a long-lived worker host). */
  mode: text('mode').notNull(),
  running: integer('running').notNull().default(0),
  /** How often it promised to heartbeat; silent past three of these. */
  heartbeatEveryMs: integer('heartbeat_every_ms').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  stoppedAt: timestamp('stopped_at', { withTimezone: true }),
}, table => [
  index('ops_workers_host_heartbeat_idx').on(table.host, table.heartbeatAt),
  check('ops_workers_running_check', sql`${table.running} >= 0`),
])

export type OpsAutomation = typeof opsAutomations.$inferSelect
export type OpsCronRun = typeof opsCronRuns.$inferSelect
export type OpsLock = typeof opsLocks.$inferSelect
export type OpsAlert = typeof opsAlerts.$inferSelect
export type OpsWorker = typeof opsWorkers.$inferSelect
