// The health report: the five dimensions measured, an overall status, Nightingale's care note,
// one snapshot per date (upsert on the date: a second run the same day replaces it).
// Overall: critical if any dimension is, else warning if any is warning or unknown (a dimension
// nobody measured is not nominal), else ok. Exit code 0 nominal / 1 warning / 2 critical.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { healthReports, type HealthDimension, type HealthStatus } from '#db/schema/health'
import type { AiFacade } from '#layers/ai/core/facade'
import { writeCareNote } from './care-note'
import { measureDimensions } from './dimensions'

export interface HealthReportSnapshot {
  date: string
  status: HealthStatus
  score: number | null
  dimensions: HealthDimension[]
  careNote: string
}

export function overallStatus(dimensions: HealthDimension[]): HealthStatus {
  if (dimensions.some(d => d.status === 'critical')) return 'critical'
  if (dimensions.some(d => d.status === 'warning' || d.status === 'unknown')) return 'warning'
  return 'ok'
}

export function overallScore(dimensions: HealthDimension[]): number | null {
  const scores = dimensions.map(d => d.score).filter((s): s is number => s !== null)
  return scores.length === 0 ? null : Math.round(scores.reduce((a, b) => a + b, 0) / scores.length)
}

export const EXIT_CODES: Record<HealthStatus, number> = { ok: 0, warning: 1, critical: 2, unknown: 1 }

/** The report date is the UTC day the report runs on. */
export const reportDate = (now: Date) => now.toISOString().slice(0, 10)

export interface BuildOptions {
  now: Date
  /** Absent (or --no-voice): no care note, no model call. */
  ai?: AiFacade
  log: (line: string) => void
  signal?: AbortSignal
}

export async function buildHealthReport(db: Db, options: BuildOptions): Promise<HealthReportSnapshot> {
  const dimensions = await measureDimensions(db, options.now)
  const status = overallStatus(dimensions)
  const careNote = options.ai ? await writeCareNote(options.ai, status, dimensions, options.log, options.signal) : ''
  return { date: reportDate(options.now), status, score: overallScore(dimensions), dimensions, careNote }
}

export async function saveHealthReport(db: Db, report: HealthReportSnapshot): Promise<void> {
  const values = { status: report.status, score: report.score, dimensions: report.dimensions, careNote: report.careNote }
  await db.insert(healthReports).values({ reportDate: report.date, ...values })
    .onConflictDoUpdate({ target: healthReports.reportDate, set: { ...values, updatedAt: sql`now()` } })
}

export function formatReport(report: HealthReportSnapshot): string[] {
  return [
    `health ${report.date}: ${report.status}${report.score === null ? '' : ` (${report.score}/100)`}`,
    ...report.dimensions.map(d => `  ${d.key.padEnd(14)} ${d.status.padEnd(8)} ${d.score === null ? '  -' : String(d.score).padStart(3)}  ${d.summary}`),
    report.careNote ? `  care note: ${report.careNote}` : '  care note: (none)',
  ]
}
