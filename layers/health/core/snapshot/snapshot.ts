// The sanitised snapshot (seed "Sanitized Snapshot Publishing"): the latest health and drift
// snapshots read in a read-only transaction, every string sanitised (IPs, internal paths,
// tenant names and slugs), then one row per date upserted into the public database's table
// (created if missing). Reading and pushing are separate so the automate can tell them apart.
import postgres from 'postgres'
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { HealthDimension, HealthStatus } from '#db/schema/health'
import { createSanitizer, sanitizeDeep } from './sanitize'

export const SNAPSHOT_TABLE = 'synedre_health_snapshots'

export interface PublicSnapshot {
  date: string
  generatedAt: string
  health: { status: HealthStatus, score: number | null, dimensions: HealthDimension[] }
  drift: null | {
    inspectedAt: string
    chaptersTotal: number
    chaptersDrifted: number
    score: number
    chapters: Array<{ chapter: string, score: number, deadReferences: string[] }>
  }
  careNote: string
}

type Row = Record<string, unknown>

/** Null when no health report exists yet. Throws when the database cannot be read. */
export async function readSnapshot(db: Db, now: Date): Promise<PublicSnapshot | null> {
  return await db.transaction(async (tx) => {
    const [report] = await tx.execute<Row>(sql`select report_date::text as date, status, score, dimensions, care_note from health_reports order by report_date desc limit 1`)
    if (!report) return null
    const [inspection] = await tx.execute<Row>(sql`select id, inspected_at, chapters_total, chapters_drifted, score from maint_inspections order by inspected_at desc, id desc limit 1`)
    const chapters = inspection
      ? await tx.execute<Row>(sql`select chapter, score, dead_references from maint_drift_chapters where inspection_id = ${inspection.id} order by score desc, chapter`)
      : []
    const tenants = await tx.execute<{ name: string, slug: string }>(sql`select name, slug from clients`)
    const snapshot: PublicSnapshot = {
      date: String(report.date),
      generatedAt: now.toISOString(),
      health: {
        status: report.status as HealthStatus,
        score: report.score === null ? null : Number(report.score),
        dimensions: report.dimensions as HealthDimension[],
      },
      drift: inspection
        ? {
            inspectedAt: new Date(inspection.inspected_at as string).toISOString(),
            chaptersTotal: Number(inspection.chapters_total),
            chaptersDrifted: Number(inspection.chapters_drifted),
            score: Number(inspection.score),
            chapters: chapters.map(c => ({
              chapter: String(c.chapter),
              score: Number(c.score),
              deadReferences: c.dead_references as string[],
            })),
          }
        : null,
      careNote: String(report.care_note ?? ''),
    }
    return sanitizeDeep(snapshot, createSanitizer([...tenants]))
  }, { accessMode: 'read only' })
}

/** Creates the table if missing and upserts the snapshot on its date. */
export async function pushSnapshot(targetUrl: string, snapshot: PublicSnapshot): Promise<void> {
  const target = postgres(targetUrl, { max: 1, connect_timeout: 10, onnotice: () => {} })
  try {
    await target.unsafe(`create table if not exists ${SNAPSHOT_TABLE} (
      snapshot_date date primary key,
      snapshot jsonb not null,
      pushed_at timestamptz not null default now()
    )`)
    await target`
      insert into ${target(SNAPSHOT_TABLE)} (snapshot_date, snapshot) values (${snapshot.date}, ${target.json(JSON.parse(JSON.stringify(snapshot)))})
      on conflict (snapshot_date) do update set snapshot = excluded.snapshot, pushed_at = now()`
  }
  finally {
    await target.end({ timeout: 5 })
  }
}
