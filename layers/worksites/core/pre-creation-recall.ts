// Recall before creation (issue 15, Deliver 4): when a work record is created, the memory's
// pre-creation recall (recallBeforeCreation: four closest entries, hybrid, lexical when the
// embedding API is down, within a time budget) runs on its title and brief, and its hits are
// stored with the record (work_recalls) so that the hub shows them before a person confirms
// the record. Never blocks the creation: a failed recall is stored as such, with its reason.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { workRecalls, type WorkRecall, type WorkRecallHit } from '#db/schema/work'
import { recallBeforeCreation } from '#layers/memory/core/recall/before-creation'
import type { RecallDeps } from '#layers/memory/core/recall/engine'
import type { RecallHit } from '#layers/memory/core/recall/types'
import type { WorkKind } from './registries'

/** What POST /api/worksites/recall answers: the hits, the mode the recall used, why it failed (nothing is stored). */
export interface RecallResult { hits: WorkRecallHit[], modeUsed: string | null, error: string | null }

/** The query: the title, then the start of the body (the title alone is often a bare subject). */
export const RECALL_QUERY_CHARS = 400

export interface RecordToRecall {
  kind: WorkKind
  id: string
  title: string
  body?: string
}

export function recallQuery(record: Pick<RecordToRecall, 'title' | 'body'>): string {
  const body = (record.body ?? '').replace(/\s+/g, ' ').trim()
  const title = record.title.trim()
  return `${title}${body && body !== title ? ` ${body}` : ''}`.slice(0, RECALL_QUERY_CHARS).trim()
}

function stored(hit: RecallHit): WorkRecallHit {
  return {
    rank: hit.rank,
    sourceType: hit.sourceType,
    sourceId: hit.sourceId,
    title: hit.title,
    snippet: hit.snippet.slice(0, 500),
    score: hit.scores.final,
  }
}

/** Runs the pre-creation recall for one record and stores its hits (replacing earlier ones). */
export async function recallForRecord(deps: RecallDeps & { budgetMs?: number }, record: RecordToRecall): Promise<WorkRecall> {
  const query = recallQuery(record)
  const result = await recallBeforeCreation({ ...deps, emit: deps.log }, { title: query })
  const row = {
    kind: record.kind,
    recordId: record.id,
    query,
    hits: result.hits.map(stored),
    modeUsed: result.modeUsed,
    error: result.error,
    recalledAt: new Date(),
  }
  const [saved] = await deps.db
    .insert(workRecalls)
    .values(row)
    .onConflictDoUpdate({
      target: [workRecalls.kind, workRecalls.recordId],
      set: { query: row.query, hits: row.hits, modeUsed: row.modeUsed, error: row.error, recalledAt: row.recalledAt },
    })
    .returning()
  return saved!
}

/** What the recall found when the record was created; null when it never ran. */
export async function recordRecall(db: Pick<Db, 'select'>, kind: WorkKind, id: string): Promise<WorkRecall | null> {
  const [row] = await db.select().from(workRecalls).where(and(eq(workRecalls.kind, kind), eq(workRecalls.recordId, id)))
  return row ?? null
}

/** The recall a create or edit form shows before saving (nothing stored: the record does not exist yet). */
export async function recallPreview(deps: RecallDeps & { budgetMs?: number }, record: Pick<RecordToRecall, 'title' | 'body'>): Promise<RecallResult> {
  const result = await recallBeforeCreation({ ...deps, emit: deps.log }, { title: recallQuery(record) })
  return { hits: result.hits.map(stored), modeUsed: result.modeUsed, error: result.error }
}
