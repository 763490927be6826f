// Recording a lesson in the lessons registry (learn_lessons): a scar (kind `failure`) or a
// victory (kind `success`), from a spawn's outcome (the spawn worker) or from a person (the
// hub's message page). The row is written at once; then, without blocking the caller:
//   - its importance is scored through the AI facade (lesson-importance.ts) — left null when
//     the model is down or offline, and filled by a later run (scoreUnscoredLessons, in the
//     vector-sync automate);
//   - it is re-indexed in the vector index at once (reindexScar), so that the next recall
//     finds it without waiting for the nightly sync (awaited: it is the point of the call;
//     an embedding failure defers it to the next sync and is reported, never thrown).
import { eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { agents } from '#db/schema/agents'
import { learnLessons, type LearnLesson } from '#db/schema/learn'
import type { Embedder } from './vectors/embedder'
import { reindexScar, type ReindexResult } from './vectors/reindex-scar'

export const LESSON_KINDS = ['scar', 'victory'] as const
export type LessonKind = typeof LESSON_KINDS[number]

export const LESSON_TITLE_MAX = 200
export const LESSON_TEXT_MAX = 10_000
export const LESSON_TAGS_MAX = 20

export class LessonInputError extends Error {
  readonly code = 'bad_lesson_input'
  constructor(message: string) {
    super(message)
    this.name = 'LessonInputError'
  }
}

export interface RecordLessonInput {
  kind: LessonKind
  /** One line naming the lesson (≤ 200 characters). */
  title: string
  /** What happened: the error text for a scar, what worked for a victory (≤ 10,000 characters, not empty). */
  description: string
  /** What was added to prevent a recurrence, or the pattern to reproduce. */
  checkAdded?: string
  /** The agent it belongs to (codename of the registry); null or absent: a global lesson. */
  agent?: string | null
  /** The tenant (clients.id) it was learnt for. */
  tenantId?: string | null
  tags?: string[]
  /** The spawn it came from (atlas_spawns.id). */
  sourceSpawnId?: string | null
  /** Who records it: the automate's name or the person's e-mail. */
  recordedBy: string
  /** 0–10 when already known (a person may set it); otherwise scored in the background. */
  importance?: number | null
}

/** Scores a lesson's importance (0–10), or null when no model could. */
export type ImportanceScorer = (lesson: Pick<LearnLesson, 'kind' | 'title' | 'description' | 'tags'>) => Promise<number | null>

export interface LessonDeps {
  /** Re-indexes the lesson at once when given (else the next vector sync does). */
  embedder?: Embedder
  /** Scores the importance in the background when given and the input has none. */
  scoreImportance?: ImportanceScorer
  log?: (line: string) => void
  /** Receives the background scoring (tests await it); by default it runs on its own. */
  background?: (work: Promise<unknown>) => void
}

export interface RecordedLesson {
  lesson: LearnLesson
  /** The immediate re-indexing's outcome; null without an embedder. */
  index: ReindexResult | null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const TAG = /^[\p{L}\p{N}][\p{L}\p{N}_.:/-]{0,47}$/u
// NUL and lone surrogates are refused: PostgreSQL rejects the first, the index mangles the second.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function text(value: unknown, field: string, max: number, required: boolean): string {
  if (value === undefined || value === null) {
    if (required) throw new LessonInputError(`${field} is required`)
    return ''
  }
  if (typeof value !== 'string') throw new LessonInputError(`${field} must be text`)
  if (value.includes(String.fromCharCode(0)) || LONE_SURROGATE.test(value)) throw new LessonInputError(`${field} holds a NUL character or a lone surrogate`)
  const trimmed = value.trim()
  if (required && !trimmed) throw new LessonInputError(`${field} is empty`)
  if ([...trimmed].length > max) throw new LessonInputError(`${field} is longer than ${max} characters`)
  return trimmed
}

/** Checks and normalises the input; throws LessonInputError (code bad_lesson_input) on bad input. */
export function validateLesson(input: RecordLessonInput): Required<Omit<RecordLessonInput, 'importance'>> & { importance: number | null } {
  if (!(LESSON_KINDS as readonly string[]).includes(input.kind)) throw new LessonInputError(`kind must be scar or victory (got ${String(input.kind)})`)
  const tags = input.tags ?? []
  if (!Array.isArray(tags) || tags.length > LESSON_TAGS_MAX) throw new LessonInputError(`tags: at most ${LESSON_TAGS_MAX}`)
  const cleanTags = [...new Set(tags.map((tag) => {
    if (typeof tag !== 'string' || !TAG.test(tag.trim().toLowerCase())) throw new LessonInputError(`tag "${String(tag)}": letters, digits, "_", ".", ":", "/" or "-", at most 48`)
    return tag.trim().toLowerCase()
  }))]
  const importance = input.importance ?? null
  if (importance !== null && (!Number.isInteger(importance) || importance < 0 || importance > 10)) throw new LessonInputError(`importance must be a whole number from 0 to 10 (got ${String(input.importance)})`)
  const tenantId = input.tenantId ?? null
  if (tenantId !== null && !UUID.test(tenantId)) throw new LessonInputError('tenantId must be a tenant id (uuid)')
  const sourceSpawnId = input.sourceSpawnId ?? null
  if (sourceSpawnId !== null && !UUID.test(sourceSpawnId)) throw new LessonInputError('sourceSpawnId must be a spawn id (uuid)')
  const agent = input.agent === undefined || input.agent === null ? null : text(input.agent, 'agent', 64, true)
  return {
    kind: input.kind,
    title: text(input.title, 'title', LESSON_TITLE_MAX, true),
    description: text(input.description, 'description', LESSON_TEXT_MAX, true),
    checkAdded: text(input.checkAdded, 'checkAdded', LESSON_TEXT_MAX, false),
    agent,
    tenantId,
    tags: cleanTags,
    sourceSpawnId,
    recordedBy: text(input.recordedBy, 'recordedBy', 320, true),
    importance,
  }
}

/**
 * Records a scar or a victory: validated, written, re-indexed at once (with an embedder), its
 * importance scored in the background (with a scorer). An unknown agent is refused
 * (LessonInputError), so that no lesson points at an agent recall will never serve.
 */
export async function recordLesson(db: Db, input: RecordLessonInput, deps: LessonDeps = {}): Promise<RecordedLesson> {
  const clean = validateLesson(input)
  const log = deps.log ?? (() => {})
  if (clean.agent !== null) {
    const [known] = await db.select({ codename: agents.codename }).from(agents).where(eq(agents.codename, clean.agent))
    if (!known) throw new LessonInputError(`no agent with codename "${clean.agent}"`)
  }
  const [lesson] = await db.insert(learnLessons).values({
    kind: clean.kind === 'victory' ? 'success' : 'failure',
    title: clean.title,
    description: clean.description,
    checkAdded: clean.checkAdded,
    importance: clean.importance,
    tags: clean.tags,
    agent: clean.agent,
    tenantId: clean.tenantId,
    sourceSpawnId: clean.sourceSpawnId,
    recordedBy: clean.recordedBy,
  }).returning()
  const row = lesson!
  if (row.importance === null && deps.scoreImportance) {
    const work = scoreOne(db, row, deps.scoreImportance, log)
    if (deps.background) deps.background(work)
    else void work
  }
  const index = deps.embedder ? await reindexScar({ db, embedder: deps.embedder, log }, row.id) : null
  return { lesson: row, index }
}

/** Scores one lesson and stores the figure; never throws (a later run retries a null). */
export async function scoreOne(db: Db, lesson: Pick<LearnLesson, 'id' | 'kind' | 'title' | 'description' | 'tags'>, score: ImportanceScorer, log: (line: string) => void): Promise<number | null> {
  try {
    const importance = await score(lesson)
    if (importance === null) return null
    // Only a still-unscored lesson: a person's figure set in between wins.
    await db.update(learnLessons).set({ importance, updatedAt: new Date() }).where(sql`${learnLessons.id} = ${lesson.id} and ${learnLessons.importance} is null`)
    return importance
  }
  catch (error) {
    log(`[memory] lesson ${lesson.id}: importance not scored (${(error as Error).message}); a later run retries`)
    return null
  }
}
