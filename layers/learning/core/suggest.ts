// The suggestion engine (§4.2): learnable lessons not yet proposed, by importance then date,
// at most 50 a run → personal data scrubbed → the model (AI facade, feature learn_suggest)
// proposes one of the six destinations, the suggestion and the diff → scrubbed again →
// inserted `pending` (one per lesson: ON CONFLICT DO NOTHING makes a re-run harmless).
// Nothing here writes to a destination: only a person's decision does (validation.ts).
import { and, desc, asc, eq, isNull, notExists, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { clients } from '#db/schema/clients'
import { LEARN_DESTINATIONS, learnLessons, learnSuggestions, type LearnDestination, type LearnLesson } from '#db/schema/learn'
import type { AiFacade } from '#layers/ai/core/facade'
import { createScrubber, scrubbedCount, type Scrubber } from './scrub'
import { promptFile } from '#layers/ai/core/prompts/file'

export const SUGGEST_FEATURE = 'learn_suggest'
export const SUGGEST_BATCH_MAX = 50
/** Between two model calls, so a real provider's rate limit is not saturated; loopback skips it. */
export const SUGGEST_DELAY_MS = 1_000
const TEXT_MAX = { suggestion: 2_000, diff: 4_000 }

export const SUGGEST_SYSTEM = promptFile(new URL('./suggest.system.md', import.meta.url))

export type SuggestionCandidate = Pick<LearnLesson, 'id' | 'kind' | 'title' | 'description' | 'checkAdded' | 'tags' | 'agent' | 'tenantId' | 'importance'>

export interface ParsedSuggestion {
  destination: LearnDestination
  suggestion: string
  diffBefore: string
  diffAfter: string
}

export class SuggestionAnswerError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SuggestionAnswerError'
  }
}

/** The model's JSON, checked: an unknown destination or a missing field refuses the answer. */
export function parseSuggestion(data: unknown): ParsedSuggestion {
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new SuggestionAnswerError('the answer is not a JSON object')
  const o = data as Record<string, unknown>
  const destination = typeof o.destination === 'string' ? o.destination.trim().toLowerCase() : ''
  if (!(LEARN_DESTINATIONS as readonly string[]).includes(destination)) throw new SuggestionAnswerError(`unknown destination "${String(o.destination).slice(0, 40)}"`)
  const text = (key: string, max: number, required: boolean): string => {
    const value = o[key]
    if (value === undefined || value === null) {
      if (required) throw new SuggestionAnswerError(`${key} is missing`)
      return ''
    }
    if (typeof value !== 'string') throw new SuggestionAnswerError(`${key} is not text`)
    if (required && !value.trim()) throw new SuggestionAnswerError(`${key} is empty`)
    return [...value.trim()].slice(0, max).join('')
  }
  const parsed = {
    destination: destination as LearnDestination,
    suggestion: text('suggestion', TEXT_MAX.suggestion, true),
    diffBefore: text('diff_before', TEXT_MAX.diff, false),
    diffAfter: text('diff_after', TEXT_MAX.diff, true),
  }
  // A reflex entry is one line of at most 200 characters (the reflex memory's own rule).
  if (parsed.destination === 'reflex' && (/[\r\n]/.test(parsed.diffAfter) || [...parsed.diffAfter].length > 200)) {
    throw new SuggestionAnswerError('a reflex suggestion\'s diff_after must be one line of at most 200 characters')
  }
  return parsed
}

/** Every contact name of every tenant: the scrubber removes them. */
export async function contactNames(db: Db): Promise<string[]> {
  const rows = await db.select({ contacts: clients.contacts }).from(clients)
  return rows.flatMap(row => (row.contacts ?? []).map(contact => contact.name ?? '').filter(Boolean))
}

/** Learnable, unarchived lessons without a suggestion yet, most important first, then oldest. */
export async function suggestionCandidates(db: Db, limit: number): Promise<SuggestionCandidate[]> {
  return db
    .select({
      id: learnLessons.id,
      kind: learnLessons.kind,
      title: learnLessons.title,
      description: learnLessons.description,
      checkAdded: learnLessons.checkAdded,
      tags: learnLessons.tags,
      agent: learnLessons.agent,
      tenantId: learnLessons.tenantId,
      importance: learnLessons.importance,
    })
    .from(learnLessons)
    .where(
      and(
        eq(learnLessons.learnable, true),
        isNull(learnLessons.archivedAt),
        notExists(
          db
            .select({ one: sql`1` })
            .from(learnSuggestions)
            .where(eq(learnSuggestions.lessonId, learnLessons.id)),
        ),
      ),
    )
    .orderBy(sql`${learnLessons.importance} desc nulls last`, desc(learnLessons.createdAt), asc(learnLessons.id))
    .limit(Math.max(1, Math.min(limit, SUGGEST_BATCH_MAX)))
}

export function suggestionPrompt(lesson: SuggestionCandidate, scrub: Scrubber): { prompt: string, scrubbed: number } {
  let scrubbed = 0
  const clean = (text: string) => {
    const result = scrub(text)
    scrubbed += scrubbedCount(result)
    return result.text
  }
  const prompt = [
    `Lesson #${lesson.id} (${lesson.kind === 'success' ? 'a success to reproduce' : 'a failure not to repeat'})`,
    `Agent: ${lesson.agent ?? 'global'}`,
    `Importance: ${lesson.importance ?? 'unscored'}/10`,
    `Title: ${clean(lesson.title)}`,
    lesson.tags.length ? `Tags: ${clean(lesson.tags.join(', '))}` : '',
    'What happened:',
    clean(lesson.description).slice(0, 4_000),
    lesson.checkAdded ? `What was added: ${clean(lesson.checkAdded).slice(0, 2_000)}` : '',
  ].filter(Boolean).join('\n')
  return { prompt, scrubbed }
}

export interface SuggestRunOptions {
  limit?: number
  dryRun?: boolean
  /** Milliseconds between two calls; 0 for loopback models. */
  delayMs?: number
  log?: (line: string) => void
  signal?: AbortSignal
  sleep?: (ms: number) => Promise<void>
}

export interface SuggestOutcome {
  lessonId: number
  status: 'inserted' | 'already_proposed' | 'failed' | 'would_propose'
  destination?: LearnDestination
  error?: string
}

export interface SuggestReport {
  candidates: number
  inserted: number
  failed: number
  /** Personal data removed: from the prompts, and from the answers (a model echoing them). */
  scrubbedIn: number
  scrubbedOut: number
  outcomes: SuggestOutcome[]
}

export async function runSuggestions(deps: { db: Db, ai: Pick<AiFacade, 'complete'> }, options: SuggestRunOptions = {}): Promise<SuggestReport> {
  const { db, ai } = deps
  const log = options.log ?? (() => {})
  const sleep = options.sleep ?? (ms => new Promise<void>(resolve => setTimeout(resolve, ms)))
  const delayMs = options.delayMs ?? SUGGEST_DELAY_MS
  const scrub = createScrubber({ names: await contactNames(db) })
  const lessons = await suggestionCandidates(db, options.limit ?? SUGGEST_BATCH_MAX)
  const report: SuggestReport = { candidates: lessons.length, inserted: 0, failed: 0, scrubbedIn: 0, scrubbedOut: 0, outcomes: [] }
  for (const [index, lesson] of lessons.entries()) {
    if (options.signal?.aborted) break
    const { prompt, scrubbed } = suggestionPrompt(lesson, scrub)
    report.scrubbedIn += scrubbed
    if (options.dryRun) {
      report.outcomes.push({ lessonId: lesson.id, status: 'would_propose' })
      continue
    }
    if (index > 0 && delayMs > 0) await sleep(delayMs)
    try {
      const answer = await ai.complete({ feature: SUGGEST_FEATURE, system: SUGGEST_SYSTEM, prompt, json: true, actor: 'learning-suggest', timeoutMs: 60_000, signal: options.signal })
      // The offline provider answers without a model: no suggestion is better than a canned one.
      if (answer.offline) throw new SuggestionAnswerError('no model available (offline answer)')
      const parsed = parseSuggestion(answer.data)
      const out = (text: string) => {
        const result = scrub(text)
        report.scrubbedOut += scrubbedCount(result)
        return result.text
      }
      const rows = await db
        .insert(learnSuggestions)
        .values({
          lessonId: lesson.id,
          destination: parsed.destination,
          suggestion: out(parsed.suggestion),
          diffBefore: out(parsed.diffBefore),
          diffAfter: out(parsed.diffAfter),
          agent: lesson.agent,
          tenantId: lesson.tenantId,
          provider: answer.provider,
          model: answer.model,
        })
        .onConflictDoNothing({ target: learnSuggestions.lessonId })
        .returning({ id: learnSuggestions.id })
      if (rows.length) {
        report.inserted++
        report.outcomes.push({ lessonId: lesson.id, status: 'inserted', destination: parsed.destination })
      }
      else {
        report.outcomes.push({ lessonId: lesson.id, status: 'already_proposed' })
      }
    }
    catch (error) {
      // One lesson's failure never stops the run; the lesson stays a candidate for the next one.
      const message = (error as Error).message.slice(0, 300)
      report.failed++
      report.outcomes.push({ lessonId: lesson.id, status: 'failed', error: message })
      log(`lesson #${lesson.id}: no suggestion (${message}); the next run retries`)
    }
  }
  return report
}

const BASE_URL_VARS = ['MISTRAL_BASE_URL', 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL', 'OPENAI_COMPAT_BASE_URL']

/**
 * The delay between two calls: none when every provider base URL set in the environment is a
 * loopback address (a local or fake model has no rate limit to respect), else SUGGEST_DELAY_MS.
 */
export function callDelayMs(env: Readonly<Record<string, string | undefined>>): number {
  const set = BASE_URL_VARS.map(name => env[name]?.trim()).filter((value): value is string => Boolean(value))
  if (!set.length) return SUGGEST_DELAY_MS
  const loopback = set.every((value) => {
    try {
      return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(new URL(value).hostname)
    }
    catch {
      return false
    }
  })
  return loopback ? 0 : SUGGEST_DELAY_MS
}
