// Current memory observability (memory-and-learning §4.6): one row per day in mem_metrics
// (upsert; rows older than 90 days pruned) — the current memory's files, bytes, index lines,
// dead links and orphans, with the lessons, the embeddings and the recalls counted — and the
// thresholds that raise an ops_alerts row (resolved again when the measure is back under).
import { and, eq, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { memMetrics } from '#db/schema/health'
import { opsAlerts } from '#db/schema/ops'
import { scanCurrentMemory } from './scan'

export const METRICS_RETENTION_DAYS = 90
export const METRICS_ALERT_KIND = 'memory_threshold'

export interface MemoryMeasures {
  day: string
  notes: number
  bytes: number
  indexLines: number
  deadLinks: number
  orphans: number
  lessons: number
  embeddings: number
  recalls: number
}

export type ThresholdKey = 'deadLinks' | 'orphans' | 'indexLines' | 'bytes'
export interface Thresholds { deadLinks: number, orphans: number, indexLines: number, bytes: number }

/** The settings (environment) and their defaults, documented in docs/health.md. */
export const THRESHOLD_SETTINGS: Record<ThresholdKey, { env: string, fallback: number, what: string }> = {
  deadLinks: { env: 'MEMORY_MAX_DEAD_LINKS', fallback: 0, what: 'dead links in the index' },
  orphans: { env: 'MEMORY_MAX_ORPHANS', fallback: 10, what: 'orphaned files' },
  indexLines: { env: 'MEMORY_MAX_INDEX_LINES', fallback: 200, what: 'index lines' },
  bytes: { env: 'MEMORY_MAX_BYTES', fallback: 2_000_000, what: 'bytes of current memory' },
}

export function thresholdsFrom(env: Readonly<Record<string, string | undefined>>): Thresholds {
  const out = {} as Thresholds
  for (const [key, setting] of Object.entries(THRESHOLD_SETTINGS) as Array<[ThresholdKey, typeof THRESHOLD_SETTINGS[ThresholdKey]]>) {
    const raw = env[setting.env]?.trim()
    const value = raw ? Number(raw) : setting.fallback
    if (!Number.isInteger(value) || value < 0) throw new Error(`${setting.env} must be a whole number ≥ 0 (got "${raw}")`)
    out[key] = value
  }
  return out
}

export async function measureMemory(db: Db, reflexDir: string, now: Date): Promise<MemoryMeasures> {
  const scan = scanCurrentMemory(reflexDir)
  const [row] = await db.execute<{ lessons: number, recalls: number, embeddings: number }>(sql`
    select (select count(*) from learn_lessons where archived_at is null)::int as lessons,
           (select coalesce(sum(recall_count), 0) from learn_lessons)::bigint as recalls,
           (select count(*) from mem_embeddings)::int as embeddings`)
  return {
    day: now.toISOString().slice(0, 10),
    notes: scan.files.length,
    bytes: scan.bytes,
    indexLines: scan.indexLines,
    deadLinks: scan.deadLinks.length,
    orphans: scan.orphans.length,
    lessons: Number(row?.lessons ?? 0),
    embeddings: Number(row?.embeddings ?? 0),
    recalls: Number(row?.recalls ?? 0),
  }
}

export interface Breach { key: ThresholdKey, value: number, limit: number, message: string }

export function breaches(measures: MemoryMeasures, thresholds: Thresholds): Breach[] {
  return (Object.keys(THRESHOLD_SETTINGS) as ThresholdKey[])
    .filter(key => measures[key] > thresholds[key])
    .map(key => ({ key, value: measures[key], limit: thresholds[key], message: `Current memory: ${measures[key]} ${THRESHOLD_SETTINGS[key].what}, above ${thresholds[key]} (${THRESHOLD_SETTINGS[key].env}).` }))
}

/** Upserts today's row, prunes past the retention, raises (or resolves) one alert per threshold. */
export async function recordMeasures(db: Db, measures: MemoryMeasures, found: Breach[], now: Date): Promise<{ pruned: number }> {
  return await db.transaction(async (tx) => {
    const { day, ...values } = measures
    await tx.insert(memMetrics).values({ day, ...values }).onConflictDoUpdate({ target: memMetrics.day, set: { ...values, recordedAt: sql`now()` } })
    const oldest = new Date(now.getTime() - (METRICS_RETENTION_DAYS - 1) * 86_400_000).toISOString().slice(0, 10)
    const pruned = await tx.delete(memMetrics).where(lt(memMetrics.day, oldest)).returning({ day: memMetrics.day })
    for (const key of Object.keys(THRESHOLD_SETTINGS) as ThresholdKey[]) {
      const breach = found.find(b => b.key === key)
      if (breach) {
        await tx
          .insert(opsAlerts)
          .values({
            kind: METRICS_ALERT_KIND,
            subject: key,
            message: breach.message,
            details: { value: breach.value, limit: breach.limit, day },
          })
          .onConflictDoUpdate({
            target: [opsAlerts.kind, opsAlerts.subject, opsAlerts.holder],
            set: { message: breach.message, details: { value: breach.value, limit: breach.limit, day }, resolvedAt: null },
          })
      }
      else {
        await tx.update(opsAlerts).set({ resolvedAt: sql`now()` })
          .where(and(eq(opsAlerts.kind, METRICS_ALERT_KIND), eq(opsAlerts.subject, key), isNull(opsAlerts.resolvedAt)))
      }
    }
    return { pruned: pruned.length }
  })
}
