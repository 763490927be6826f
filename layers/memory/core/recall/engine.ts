// The recall engine (memory-and-learning.md, "Recall RAG"): sem (cosine), lex (French
// full text) or hybrid (Reciprocal Rank Fusion, the default); a scope over source types;
// an over-fetch ×3, then the scar re-rank by importance and age; the recall counters of the
// scars served, updated in the background; the lexical arm alone when the embedding call
// fails (a rate limit, an outage); the statements of a recall take turns with other
// recalls (turns.ts).
import type { Db } from '#db/client'
import { parseScope, SOURCE_TYPES, sourceLink, type SourceType } from '../sources'
import { vectorLiteral } from '../vectors/chunk'
import { dimensionsFor, halfPrecisionIndex } from '../vectors/dimensions'
import type { Embedder } from '../vectors/embedder'
import { fuzzyArm, lexicalArm, semanticArm, type ArmFilter } from './arms'
import { isRelevant, LEXICAL_MIN_WORDS, semanticFloor } from './floor'
import { fuzzyExpansions, fuzzyTsquery, type Expansion } from './fuzzy'
import { fuseNeighbours, LINK_SEEDS, linkedNotes, withinTime } from './links'
import { countRecalls } from './counters'
import { reciprocalRankFusion } from './fusion'
import { turnsFor } from './turns'
import { ageInDays, scarFactor } from './rerank'
import { BELOW_FLOOR, DEFAULT_K, MAX_K, OVERFETCH, RECALL_MODES, type BelowFloor, type Candidate, type LessonMeta, type RecallHit, type RecallMode, type RecallResponse } from './types'
import { queryWords, tsTerm } from './words'

export class RecallInputError extends Error {
  readonly code = 'bad_recall_input'
  constructor(message: string) {
    super(message)
    this.name = 'RecallInputError'
  }
}

export interface RecallRequest {
  query: string
  k?: number
  mode?: RecallMode
  /** `all`, a comma-separated list, or the types themselves. */
  scope?: string | SourceType[]
  /** Only the sources belonging to this agent (codename). */
  agent?: string | null
  /** A client tenant (slug): its own notes and the shared ones, never another tenant's. */
  tenant?: string | null
  /** A set of tenants (slugs) an allowlisted run may read: theirs and the shared ones; [] = the shared ones only. */
  tenants?: readonly string[] | null
  /** Only these source ids (with a scope naming their type): how the skill router recalls a person's enabled skills. */
  sourceIds?: string[]
  /** Leave the recall counters untouched (the evaluation harness). */
  readOnly?: boolean
  /** A query vector computed beforehand (the harness embeds its queries in batches). */
  queryVector?: { vector: number[], model: string }
  /** Hits below the relevance floor: flagged `lowConfidence` (default) or dropped. */
  belowFloor?: BelowFloor
}

export interface RecallDeps {
  db: Db
  embedder: Embedder
  now?: () => Date
  log?: (line: string) => void
  /** Receives the background counter update (the CLI awaits it before exiting). */
  background?: (work: Promise<unknown>) => void
  /** Where RECALL_SEMANTIC_FLOOR and RECALL_CONCURRENCY are read (process.env by default). */
  env?: Record<string, string | undefined>
}

const key = (candidate: Pick<Candidate, 'sourceType' | 'sourceId'>) => `${candidate.sourceType}:${candidate.sourceId}`

export function validateRecallRequest(request: RecallRequest): {
  query: string
  k: number
  mode: RecallMode
  types: SourceType[]
  belowFloor: BelowFloor
} {
  const query = typeof request.query === 'string' ? request.query.trim() : ''
  if (!query) throw new RecallInputError('the query is empty')
  if (query.length > 2000) throw new RecallInputError('the query is longer than 2000 characters')
  const k = request.k ?? DEFAULT_K
  if (!Number.isInteger(k) || k < 1 || k > MAX_K)
    throw new RecallInputError(`k must be an integer from 1 to ${MAX_K} (got ${String(request.k)})`)
  const mode = request.mode ?? 'hybrid'
  if (!RECALL_MODES.includes(mode))
    throw new RecallInputError(`mode must be one of ${RECALL_MODES.join(', ')} (got ${String(request.mode)})`)
  const types = Array.isArray(request.scope) ? parseScope(request.scope.join(',')) : parseScope(request.scope)
  const belowFloor = request.belowFloor ?? 'flag'
  if (!BELOW_FLOOR.includes(belowFloor))
    throw new RecallInputError(`belowFloor must be one of ${BELOW_FLOOR.join(', ')} (got ${String(request.belowFloor)})`)
  return { query, k, mode, types, belowFloor }
}

interface Ranked {
  candidate: Candidate
  /** The arm's score × the scar factor. */
  adjusted: number
  lesson: LessonMeta | undefined
  ageDays: number
  factor: number
}

/** Importance and creation time of the scars among the candidates, as their arms read them. */
function scarMeta(candidates: Candidate[]): Map<string, LessonMeta> {
  return new Map(candidates.filter(item => item.sourceType === 'scar' && item.lesson).map(item => [item.sourceId, item.lesson!]))
}

/**
 * The scar re-rank of one arm's over-fetched candidates: score × (1 + importance/10) ×
 * exp(−age/365) for scars, the score unchanged for the rest; stable for equal scores.
 */
function rerankArm(candidates: Candidate[], lessons: Map<string, LessonMeta>, now: Date): Ranked[] {
  return candidates
    .map((candidate, order) => {
      const lesson = candidate.sourceType === 'scar' ? lessons.get(candidate.sourceId) : undefined
      const ageDays = lesson ? ageInDays(lesson.createdAt, now) : 0
      const factor = lesson ? scarFactor(lesson.importance, ageDays) : 1
      return { ranked: { candidate, adjusted: candidate.score * factor, lesson, ageDays, factor }, order }
    })
    .sort((a, b) => b.ranked.adjusted - a.ranked.adjusted || a.order - b.order)
    .map(({ ranked }) => ranked)
}

function toHit(ranked: Ranked, scores: Omit<RecallHit['scores'], 'rerank' | 'fuzzy' | 'lexicalWords'>): RecallHit {
  const { candidate, lesson } = ranked
  return {
    rank: 0,
    sourceType: candidate.sourceType,
    sourceId: candidate.sourceId,
    title: candidate.title,
    snippet: candidate.snippet,
    agent: candidate.agent,
    link: sourceLink(candidate.sourceType, candidate.sourceId),
    scores: {
      ...scores,
      fuzzy: scores.lexical !== null && candidate.fuzzy === true,
      lexicalWords: scores.lexical !== null ? candidate.words ?? null : null,
      rerank: lesson ? { importance: lesson.importance ?? 0, ageDays: Math.round(ranked.ageDays * 10) / 10, factor: ranked.factor } : null,
    },
    lowConfidence: false,
  }
}

/**
 * Single mode: the arm re-ranked. Hybrid: each arm re-ranked, then fused by RRF on those
 * ranks (the re-rank moves a scar up its lists; it never multiplies a rank-based RRF score).
 */
function combine(mode: RecallMode, sem: Ranked[], lex: Ranked[]): RecallHit[] {
  if (mode === 'sem' || mode === 'lex') {
    const arm = mode === 'sem' ? sem : lex
    return arm.map((ranked, index) => toHit(ranked, {
      semantic: mode === 'sem' ? ranked.candidate.score : null,
      semanticRank: mode === 'sem' ? index + 1 : null,
      lexical: mode === 'lex' ? ranked.candidate.score : null,
      lexicalRank: mode === 'lex' ? index + 1 : null,
      rrf: null,
      base: ranked.candidate.score,
      final: ranked.adjusted,
    }))
  }
  const semKeys = sem.map(ranked => key(ranked.candidate))
  const lexKeys = lex.map(ranked => key(ranked.candidate))
  // The lexical candidate wins: it carries the floor's word counts and the fuzzy mark.
  const byKey = new Map([...sem, ...lex].map(ranked => [key(ranked.candidate), ranked]))
  const semByKey = new Map(sem.map((ranked, index) => [key(ranked.candidate), { score: ranked.candidate.score, rank: index + 1 }]))
  const lexByKey = new Map(lex.map((ranked, index) => [key(ranked.candidate), { score: ranked.candidate.score, rank: index + 1 }]))
  const unadjusted = new Map(reciprocalRankFusion([
    [...sem].sort((a, b) => b.candidate.score - a.candidate.score).map(ranked => key(ranked.candidate)),
    [...lex].sort((a, b) => b.candidate.score - a.candidate.score).map(ranked => key(ranked.candidate)),
  ]).map(entry => [entry.key, entry.score]))
  return reciprocalRankFusion([semKeys, lexKeys]).map((entry) => {
    const semantic = semByKey.get(entry.key)
    const lexical = lexByKey.get(entry.key)
    return toHit(byKey.get(entry.key)!, {
      semantic: semantic?.score ?? null,
      semanticRank: semantic?.rank ?? null,
      lexical: lexical?.score ?? null,
      lexicalRank: lexical?.rank ?? null,
      rrf: entry.score,
      base: unadjusted.get(entry.key) ?? entry.score,
      final: entry.score,
    })
  })
}

/** Why a response has nothing relevant to say (null when it has): the floor's two tests, named. */
export function lowConfidenceReason(hits: RecallHit[], dropped: number, floor: number): string | null {
  if (hits.some(hit => !hit.lowConfidence)) return null
  const below = `no result holds ${LEXICAL_MIN_WORDS} of the query's words exactly (all of them when it has fewer) nor reaches cosine ${floor}`
  if (hits.length > 0) return below
  return dropped > 0 ? `${below}: ${dropped} result(s) below the floor dropped` : 'nothing in memory matches the query'
}

type RecallFilter = ArmFilter & { agent: string | null, tenant: string | null }
type QueryVector = NonNullable<RecallRequest['queryVector']>
interface ArmsFound { sem: Candidate[], exact: Candidate[], typos: { expansions: Expansion[], candidates: Candidate[] } }

function recallFilter(request: RecallRequest, types: SourceType[], k: number): RecallFilter {
  return {
    types: types.length === SOURCE_TYPES.length ? null : types,
    agent: request.agent?.trim() || null,
    tenant: request.tenant?.trim().toLowerCase() || null,
    tenants: request.tenants?.map(slug => slug.trim().toLowerCase()) ?? null,
    sourceIds: request.sourceIds ?? null,
    limit: k * OVERFETCH,
  }
}

/** The query's vector (given, or embedded now); a failed embedding call falls back to the lexical arm alone. */
async function embedQuery(
  deps: RecallDeps,
  query: string,
  mode: RecallMode,
  given: QueryVector | null,
  log: (line: string) => void,
): Promise<{ queryVector: QueryVector | null, modeUsed: RecallMode, fallback: RecallResponse['fallback'] }> {
  if (mode === 'lex' || given) return { queryVector: given, modeUsed: mode, fallback: null }
  try {
    const embedded = await deps.embedder.embed([query], 'query')
    return { queryVector: { vector: embedded.vectors[0]!, model: embedded.model }, modeUsed: mode, fallback: null }
  }
  catch (error) {
    const fallback = { from: mode, reason: (error as Error).message }
    log(`[recall] the embedding call failed (${fallback.reason}): lexical recall only`)
    return { queryVector: null, modeUsed: 'lex', fallback }
  }
}

/** The arms the mode asks for, their statements in one turn. */
async function runArms(
  deps: RecallDeps,
  words: string[],
  filter: RecallFilter,
  queryVector: QueryVector | null,
  modeUsed: RecallMode,
): Promise<ArmsFound> {
  // The typo search only when the lexical statement found a word whose stem the vault lacks:
  // most queries have none, and skip the expansion's statement.
  const lexical = async () => {
    const found = await lexicalArm(deps.db, words.map(tsTerm).filter(Boolean), filter)
    if (!found.unknownStems) return { exact: found.candidates, typos: { expansions: [], candidates: [] } }
    const expansions = await fuzzyExpansions(deps.db, words)
    return { exact: found.candidates, typos: { expansions, candidates: await fuzzyArm(deps.db, fuzzyTsquery(expansions), filter) } }
  }
  const semantic = async () => {
    const dimensions = await dimensionsFor(deps.db, queryVector!.vector.length)
    const index = { dimensions, halfPrecision: await halfPrecisionIndex(deps.db) }
    return await semanticArm(deps.db, vectorLiteral(queryVector!.vector, dimensions), queryVector!.model, filter, index)
  }
  // The embedding call (a provider's latency) stays outside the turn: only the statements take one.
  const [sem, { exact, typos }] = await turnsFor(deps.db, deps.env ?? process.env).run(async () => await Promise.all([
    modeUsed === 'lex' ? Promise.resolve([]) : semantic(),
    modeUsed === 'sem' ? Promise.resolve({ exact: [], typos: { expansions: [], candidates: [] } }) : lexical(),
  ]))
  return { sem, exact, typos }
}

/** The arms re-ranked and combined, each hit marked below the floor or not. */
function rankHits(arms: ArmsFound, modeUsed: RecallMode, floor: number, now: Date): RecallHit[] {
  const { sem, exact, typos } = arms
  const exactKeys = new Set(exact.map(key))
  const fuzzyOnly = typos.candidates.filter(candidate => !exactKeys.has(key(candidate)))
  const lessons = scarMeta([...sem, ...exact, ...fuzzyOnly])
  // Fuzzy hits rank after every exact one, whatever their scores: a typo never drowns a match.
  const lex = [...rerankArm(exact, lessons, now), ...rerankArm(fuzzyOnly, lessons, now)]
  const fused = combine(modeUsed, rerankArm(sem, lessons, now), lex)
  for (const hit of fused) hit.lowConfidence = !isRelevant(hit.scores, floor)
  return fused
}

/**
 * Hybrid: a hit above the floor ranks before every hit below it (each group in fused order).
 * RRF favours a chunk both arms found weakly over one a single arm found strongly (a note
 * holding every stem of the query, the semantic arm blind to it); the floor knows the
 * difference. The best vault notes above the floor, within the k served, are followed one
 * link away (links.ts): one statement more. A note's id is its vault path (a .md file);
 * another id has no links to follow, and costs no statement.
 */
async function relevantFirst(
  deps: RecallDeps,
  fused: RecallHit[],
  k: number,
  filter: RecallFilter,
  log: (line: string) => void,
): Promise<RecallHit[]> {
  const relevant = fused.filter(hit => !hit.lowConfidence)
  const seeds = relevant.slice(0, k).filter(hit => hit.sourceType === 'note' && hit.sourceId.endsWith('.md')).slice(0, LINK_SEEDS).map(hit => hit.sourceId)
  const neighbours = seeds.length === 0
    ? []
    : await withinTime(turnsFor(deps.db, deps.env ?? process.env).run(async () => await linkedNotes(deps.db, seeds, relevant.filter(hit => hit.sourceType === 'note').map(hit => hit.sourceId), filter)), [], log)
  const linked = new Set(neighbours.map(neighbour => neighbour.sourceId))
  return [...fuseNeighbours(relevant, neighbours, id => sourceLink('note', id)), ...fused.filter(hit => hit.lowConfidence && !(hit.sourceType === 'note' && linked.has(hit.sourceId)))]
}

/** The recall counters of the scars served, updated in the background. */
function countServedScars(deps: RecallDeps, hits: RecallHit[], log: (line: string) => void): void {
  const served = hits.filter(hit => hit.sourceType === 'scar' && /^\d{1,18}$/.test(hit.sourceId)).map(hit => Number(hit.sourceId))
  const work = countRecalls(deps.db, served, log)
  if (deps.background) deps.background(work)
  else void work
}

export async function recall(deps: RecallDeps, request: RecallRequest): Promise<RecallResponse> {
  const startedAt = Date.now()
  const { query, k, mode, types, belowFloor } = validateRecallRequest(request)
  const log = deps.log ?? (() => {})
  const now = deps.now?.() ?? new Date()
  const filter = recallFilter(request, types, k)
  const words = queryWords(query)
  const { queryVector, modeUsed, fallback } = await embedQuery(deps, query, mode, request.queryVector ?? null, log)
  const arms = await runArms(deps, words, filter, queryVector, modeUsed)
  const floor = semanticFloor(queryVector?.model ?? null, deps.env ?? process.env)
  const fused = rankHits(arms, modeUsed, floor, now)
  // A single arm keeps its own order.
  const combined = modeUsed === 'hybrid' ? await relevantFirst(deps, fused, k, filter, log) : fused
  const kept = belowFloor === 'drop' ? combined.filter(hit => !hit.lowConfidence) : combined
  const hits = kept.slice(0, k)
  hits.forEach((hit, index) => {
    hit.rank = index + 1
  })
  if (!request.readOnly) countServedScars(deps, hits, log)

  return {
    query, mode, modeUsed, k, scope: types, agent: filter.agent, tenant: filter.tenant, words, fallback,
    expansions: arms.typos.expansions.map(item => ({ word: item.word, stems: item.near.map(near => near.lexeme) })),
    floor: { semantic: floor, belowFloor, dropped: combined.length - kept.length },
    lowConfidence: hits.every(hit => hit.lowConfidence),
    lowConfidenceReason: lowConfidenceReason(hits, combined.length - kept.length, floor),
    hits,
    tookMs: Date.now() - startedAt,
  }
}
