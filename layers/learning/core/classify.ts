// The scar classifier (§4.6): the scars not yet qualified → the model (AI facade, feature
// learn_classify) returns an error type, a re-estimated severity, a confidence, a rationale
// and proposed tags. The learnable verdict is NOT written to the `learnable` column: it is
// serialised as the rationale's prefix `learnable:true|false` (documented, intentional — a
// person turns a lesson learnable). An answer outside the schema is recorded on that scar as
// a failure (classifier_error, an attempt counted) and the run goes on; a scar is tried at
// most CLASSIFY_MAX_ATTEMPTS times. Personal data is scrubbed before the model sees a scar.
import { and, asc, eq, isNull, lt, ne, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { clients } from '#db/schema/clients'
import { learnLessons, type LearnLesson } from '#db/schema/learn'
import type { AiFacade } from '#layers/ai/core/facade'
import { createScrubber, type Scrubber } from './scrub'
import { contactNames } from './suggest'
import { fillPrompt, promptFile } from '#layers/ai/core/prompts/file'

export const CLASSIFY_FEATURE = 'learn_classify'
export const CLASSIFY_BATCH_MAX = 100
export const CLASSIFY_MAX_ATTEMPTS = 3
export const ERROR_TYPES = ['logic', 'data', 'integration', 'configuration', 'security', 'performance', 'process', 'communication', 'tooling', 'other'] as const
export type ErrorType = typeof ERROR_TYPES[number]

export const CLASSIFY_SYSTEM = fillPrompt(promptFile(new URL('./classify.system.md', import.meta.url)), { errorTypes: ERROR_TYPES.map(t => `"${t}"`).join(', ') })

export interface Classification {
  errorType: ErrorType
  severity: number
  confidence: number
  learnable: boolean
  /** Prefixed `learnable:true|false ` as the seed documents. */
  rationale: string
  tags: string[]
}

export class ClassificationAnswerError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ClassificationAnswerError'
  }
}

const TAG = /^[\p{L}\p{N}][\p{L}\p{N}_.:/-]{0,47}$/u

export function parseClassification(data: unknown): Classification {
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ClassificationAnswerError('the answer is not a JSON object')
  const o = data as Record<string, unknown>
  const errorType = typeof o.error_type === 'string' ? o.error_type.trim().toLowerCase() : ''
  if (!(ERROR_TYPES as readonly string[]).includes(errorType)) throw new ClassificationAnswerError(`unknown error_type "${String(o.error_type).slice(0, 40)}"`)
  const severity = o.severity
  if (typeof severity !== 'number' || !Number.isInteger(severity) || severity < 1 || severity > 5) throw new ClassificationAnswerError(`severity must be a whole number 1–5 (got ${JSON.stringify(severity)?.slice(0, 20)})`)
  const confidence = o.confidence
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) throw new ClassificationAnswerError('confidence must be a number from 0 to 1')
  if (typeof o.learnable !== 'boolean') throw new ClassificationAnswerError('learnable must be true or false')
  if (typeof o.rationale !== 'string' || !o.rationale.trim()) throw new ClassificationAnswerError('rationale is missing')
  const tags = o.tags ?? []
  if (!Array.isArray(tags) || tags.length > 5 || tags.some(tag => typeof tag !== 'string' || !TAG.test(tag.trim().toLowerCase()))) {
    throw new ClassificationAnswerError('tags must be at most 5 short tags (letters, digits, _ . : / -)')
  }
  const rationale = o.rationale.trim().replace(/^learnable:(true|false)\s*/i, '').slice(0, 1_000)
  return {
    errorType: errorType as ErrorType,
    severity,
    confidence,
    learnable: o.learnable,
    rationale: `learnable:${o.learnable} ${rationale}`,
    tags: [...new Set((tags as string[]).map(tag => tag.trim().toLowerCase()))],
  }
}

/** tenantSlug: the tenant the lesson was learnt for, whose model classifies it (null: studio-wide). */
type ScarRow = Pick<LearnLesson, 'id' | 'title' | 'description' | 'checkAdded' | 'tags' | 'agent' | 'severity'> & { tenantSlug: string | null }

/** Scars (every kind but success) never qualified and not given up on, oldest first. */
export async function unclassifiedScars(db: Db, limit: number): Promise<ScarRow[]> {
  return db
    .select({
      id: learnLessons.id,
      title: learnLessons.title,
      description: learnLessons.description,
      checkAdded: learnLessons.checkAdded,
      tags: learnLessons.tags,
      agent: learnLessons.agent,
      severity: learnLessons.severity,
      tenantSlug: clients.slug,
    })
    .from(learnLessons)
    .leftJoin(clients, eq(clients.id, learnLessons.tenantId))
    .where(
      and(
        ne(learnLessons.kind, 'success'),
        isNull(learnLessons.errorType),
        isNull(learnLessons.archivedAt),
        lt(learnLessons.classifyAttempts, CLASSIFY_MAX_ATTEMPTS),
      ),
    )
    .orderBy(asc(learnLessons.createdAt), asc(learnLessons.id))
    .limit(Math.max(1, Math.min(limit, CLASSIFY_BATCH_MAX)))
}

export function classifyPrompt(scar: ScarRow, scrub: Scrubber): string {
  const clean = (text: string) => scrub(text).text
  return [
    `Scar #${scar.id}, agent ${scar.agent ?? 'global'}${scar.severity ? `, current severity ${scar.severity}` : ''}`,
    `Title: ${clean(scar.title)}`,
    scar.tags.length ? `Tags: ${clean(scar.tags.join(', '))}` : '',
    'What happened:',
    clean(scar.description).slice(0, 4_000),
    scar.checkAdded ? `What was added: ${clean(scar.checkAdded).slice(0, 2_000)}` : '',
  ].filter(Boolean).join('\n')
}

export interface ClassifyOutcome {
  lessonId: number
  status: 'classified' | 'failed' | 'would_classify'
  classification?: Classification
  error?: string
}

export interface ClassifyReport {
  candidates: number
  classified: number
  failed: number
  outcomes: ClassifyOutcome[]
}

export async function runClassifier(deps: { db: Db, ai: Pick<AiFacade, 'complete'> }, options: { limit?: number, dryRun?: boolean, log?: (line: string) => void, signal?: AbortSignal } = {}): Promise<ClassifyReport> {
  const { db, ai } = deps
  const log = options.log ?? (() => {})
  const scrub = createScrubber({ names: await contactNames(db) })
  const scars = await unclassifiedScars(db, options.limit ?? CLASSIFY_BATCH_MAX)
  const report: ClassifyReport = { candidates: scars.length, classified: 0, failed: 0, outcomes: [] }
  for (const scar of scars) {
    if (options.signal?.aborted) break
    const prompt = classifyPrompt(scar, scrub)
    if (options.dryRun) {
      report.outcomes.push({ lessonId: scar.id, status: 'would_classify' })
      continue
    }
    try {
      const answer = await ai.complete({ feature: CLASSIFY_FEATURE, system: CLASSIFY_SYSTEM, prompt, json: true, actor: 'learning-classify', tenant: scar.tenantSlug ?? undefined, timeoutMs: 60_000, signal: options.signal })
      if (answer.offline) throw new ClassificationAnswerError('no model available (offline answer)')
      const c = parseClassification(answer.data)
      // The rationale and tags are model text: scrubbed before they are stored.
      await db.update(learnLessons).set({
        errorType: c.errorType, severity: c.severity, classifierConfidence: c.confidence, classifierRationale: scrub(c.rationale).text,
        classifierTags: c.tags.map(tag => scrub(tag).text), classifiedAt: new Date(), classifierError: null,
        classifyAttempts: sql`${learnLessons.classifyAttempts} + 1`, updatedAt: new Date(),
      }).where(and(eq(learnLessons.id, scar.id), isNull(learnLessons.errorType)))
      report.classified++
      report.outcomes.push({ lessonId: scar.id, status: 'classified', classification: c })
    }
    catch (error) {
      const message = (error as Error).message.slice(0, 300)
      await db.update(learnLessons).set({ classifierError: message, classifyAttempts: sql`${learnLessons.classifyAttempts} + 1`, updatedAt: new Date() })
        .where(eq(learnLessons.id, scar.id))
      report.failed++
      report.outcomes.push({ lessonId: scar.id, status: 'failed', error: message })
      log(`scar #${scar.id}: not classified (${message})`)
    }
  }
  return report
}
