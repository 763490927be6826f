// What /hub/health reads: the health snapshots (latest and history), the morning reports of
// the nights, the memory metrics series.
import { desc, gte } from 'drizzle-orm'
import type { Db } from '#db/client'
import { healthReports, maintNights, memMetrics, type HealthDimension, type HealthStatus, type MaintNightStep } from '#db/schema/health'

export interface HealthReportView {
  date: string
  status: HealthStatus
  score: number | null
  dimensions: HealthDimension[]
  careNote: string
  updatedAt: string
}

const DAY_MS = 86_400_000
const since = (now: Date, days: number) => new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10)

/** The last `days` snapshots, oldest first, and the latest one (which may be older than the window). */
export async function healthHistory(
  db: Db,
  now: Date,
  days: number,
): Promise<{ latest: HealthReportView | null, history: HealthReportView[] }> {
  const view = (row: typeof healthReports.$inferSelect): HealthReportView => ({
    date: row.reportDate,
    status: row.status,
    score: row.score,
    dimensions: row.dimensions,
    careNote: row.careNote,
    updatedAt: row.updatedAt.toISOString(),
  })
  const [latest] = await db.select().from(healthReports).orderBy(desc(healthReports.reportDate)).limit(1)
  const rows = await db
    .select()
    .from(healthReports)
    .where(gte(healthReports.reportDate, since(now, days)))
    .orderBy(healthReports.reportDate)
  return { latest: latest ? view(latest) : null, history: rows.map(view) }
}

export interface NightView { night: string, exitCode: number | null, steps: MaintNightStep[], startedAt: string, endedAt: string | null }

export async function recentNights(db: Db, limit: number): Promise<NightView[]> {
  const rows = await db.select().from(maintNights).orderBy(desc(maintNights.night)).limit(limit)
  return rows.map(row => ({
    night: row.night,
    exitCode: row.exitCode,
    steps: row.steps,
    startedAt: row.startedAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
  }))
}

export type MemoryMetricsView = Omit<typeof memMetrics.$inferSelect, 'recordedAt'> & { recordedAt: string }

export async function memoryMetricsSeries(db: Db, now: Date, days: number): Promise<MemoryMetricsView[]> {
  const rows = await db.select().from(memMetrics).where(gte(memMetrics.day, since(now, days))).orderBy(memMetrics.day)
  return rows.map(row => ({ ...row, recordedAt: row.recordedAt.toISOString() }))
}
