// What the loop writes to the maint_* tables: each inspection with its drifting chapters, the
// coverage measure, and the morning report (one row per night, replaced by a second run).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { maintCoverage, maintDriftChapters, maintInspections, maintNights, type MaintNightStep } from '#db/schema/health'
import type { Coverage, Inspection } from './drift'

export async function saveInspection(db: Db, night: string, phase: 'initial' | 'reinspection', inspection: Inspection): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.insert(maintInspections).values({
      night,
      phase,
      chaptersTotal: inspection.chaptersTotal,
      chaptersDrifted: inspection.drifted.length,
      deadReferences: inspection.deadReferences,
      score: inspection.score,
    }).returning({ id: maintInspections.id })
    if (inspection.drifted.length > 0) {
      await tx
        .insert(maintDriftChapters)
        .values(inspection.drifted.map(c => ({ inspectionId: row!.id, chapter: c.chapter, deadReferences: c.dead, score: c.score })))
    }
  })
}

export async function saveCoverage(db: Db, night: string, coverage: Coverage): Promise<void> {
  await db.insert(maintCoverage).values({ night, unitsTotal: coverage.unitsTotal, uncoveredUnits: coverage.uncovered })
}

export async function saveNight(db: Db, night: string, exitCode: number, steps: MaintNightStep[], startedAt: Date): Promise<void> {
  const values = { exitCode, steps, startedAt, endedAt: new Date() }
  await db.insert(maintNights).values({ night, ...values })
    .onConflictDoUpdate({ target: maintNights.night, set: { ...values, endedAt: sql`now()` } })
}
