// A lesson's importance (0–10, it weights the scar re-rank of recall), scored by a model
// through the AI facade (feature `learn_importance`). No model (offline, every provider
// down, an answer without a figure) → null: the lesson stays unscored and the later run
// (scoreUnscoredLessons, run by the vector-sync automate) tries again.
import { and, asc, isNull } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnLessons } from '#db/schema/learn'
import type { AiFacade } from '#layers/ai/core/facade'
import { scoreOne, type ImportanceScorer } from './lessons'
import { promptFile } from '#layers/ai/core/prompts/file'

export const IMPORTANCE_FEATURE = 'learn_importance'
/** At most this many lessons per later run: a long outage's backlog is caught up over days, never in one burst. */
export const IMPORTANCE_BATCH = 25

const SYSTEM = promptFile(new URL('./lesson-importance.system.md', import.meta.url))

/** Reads the figure from the model's JSON; null when absent or out of range. */
export function importanceFrom(data: unknown): number | null {
  if (!data || typeof data !== 'object') return null
  const value = (data as Record<string, unknown>).importance
  const figure = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof figure === 'number' && Number.isFinite(figure) && figure >= 0 && figure <= 10 ? Math.round(figure) : null
}

export function importanceScorer(ai: Pick<AiFacade, 'complete'>, options: { timeoutMs?: number } = {}): ImportanceScorer {
  return async (lesson) => {
    const result = await ai.complete({
      feature: IMPORTANCE_FEATURE,
      system: SYSTEM,
      prompt: [
        `Kind: ${lesson.kind === 'success' ? 'victory (what worked)' : 'scar (what failed)'}`,
        `Title: ${lesson.title}`,
        lesson.tags.length ? `Tags: ${lesson.tags.join(', ')}` : '',
        'Text:',
        lesson.description.slice(0, 4000),
      ].filter(Boolean).join('\n'),
      json: true,
      timeoutMs: options.timeoutMs ?? 30_000,
    })
    return importanceFrom(result.data)
  }
}

/** The later run: the oldest unscored, unarchived lessons, scored one by one. */
export async function scoreUnscoredLessons(
  db: Db,
  score: ImportanceScorer,
  options: { limit?: number, log?: (line: string) => void, signal?: AbortSignal } = {},
): Promise<{ candidates: number, scored: number }> {
  const log = options.log ?? (() => {})
  const rows = await db
    .select({
      id: learnLessons.id,
      kind: learnLessons.kind,
      title: learnLessons.title,
      description: learnLessons.description,
      tags: learnLessons.tags,
    })
    .from(learnLessons)
    .where(and(isNull(learnLessons.importance), isNull(learnLessons.archivedAt)))
    .orderBy(asc(learnLessons.createdAt), asc(learnLessons.id))
    .limit(options.limit ?? IMPORTANCE_BATCH)
  let scored = 0
  for (const row of rows) {
    if (options.signal?.aborted) break
    if ((await scoreOne(db, row, score, log)) !== null) scored++
  }
  return { candidates: rows.length, scored }
}
