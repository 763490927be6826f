// The relevance floor set from the evaluation set and checked on a part held back from the
// setting (issue 37). Recall's decision (floor.ts): a hit is relevant when the lexical arm
// matched two of the query's words exactly, or when its cosine reaches the semantic floor;
// a response with no relevant hit says "nothing relevant". The lexical test is fixed; the
// semantic floor is the one number to set, per embedding model. Every other query of each
// kind sets it (the calibration half), the others check it (the held-back half): on each, the
// share of the expected hits found that stay relevant, and the share of the unanswerable
// questions answered "nothing relevant".
import type { Db } from '#db/client'
import { LEXICAL_MIN_WORDS } from '../recall/floor'
import { recall } from '../recall/engine'
import type { RecallHit } from '../recall/types'
import type { Embedder } from '../vectors/embedder'
import { DEFAULT_KIND, type GoldenSet } from './golden'
import { queryVectors } from './harness'
import { matches } from './metrics'

/** What the decision reads of a hit: its cosine, whether its words alone make it relevant, or a link from a relevant note (links.ts). */
export interface FloorHit {
  semantic: number | null
  lexical: boolean
  linked?: boolean
}

export interface FloorRecord {
  id: string
  kind: string
  heldBack: boolean
  /** Answerable: the expected hits found in the top k; unanswerable: every hit of the top k. */
  hits: FloorHit[]
}

export interface FloorShares {
  /** Expected hits found that stand relevant, of those found (answerable queries). */
  kept: number
  keptOf: number
  /** Unanswerable questions answered "nothing relevant". */
  rejected: number
  rejectedOf: number
}

export interface FloorCalibration {
  model: string | null
  current: { floor: number, calibration: FloorShares, heldBack: FloorShares }
  suggested: { floor: number, calibration: FloorShares, heldBack: FloorShares }
}

/** The floors tried: 0.20 to 0.90 by 0.01. */
export const FLOOR_CANDIDATES = Array.from({ length: 71 }, (_, index) => Math.round((0.2 + index / 100) * 100) / 100)

const relevant = (hit: FloorHit, floor: number) => hit.lexical || hit.linked === true || (hit.semantic !== null && hit.semantic >= floor)

export function floorShares(records: FloorRecord[], floor: number): FloorShares {
  const answerable = records.filter(record => record.kind !== 'unanswerable')
  const unanswerable = records.filter(record => record.kind === 'unanswerable')
  return {
    kept: answerable.reduce((sum, record) => sum + record.hits.filter(hit => relevant(hit, floor)).length, 0),
    keptOf: answerable.reduce((sum, record) => sum + record.hits.length, 0),
    rejected: unanswerable.filter(record => !record.hits.some(hit => relevant(hit, floor))).length,
    rejectedOf: unanswerable.length,
  }
}

/**
 * The floor the calibration half suggests: of the floors that keep as many expected hits as
 * the current one, the one rejecting the most unanswerable questions, the lowest of those (a
 * higher one would only cost answers the set does not show).
 */
export function suggestFloor(records: FloorRecord[], current: number, candidates = FLOOR_CANDIDATES): number {
  const calibration = records.filter(record => !record.heldBack)
  const now = floorShares(calibration, current)
  const eligible = candidates.filter(floor => floorShares(calibration, floor).kept >= now.kept)
  const most = Math.max(now.rejected, ...eligible.map(floor => floorShares(calibration, floor).rejected))
  if (most === now.rejected) return current
  return eligible.find(floor => floorShares(calibration, floor).rejected === most)!
}

function toFloorHit(hit: RecallHit): FloorHit {
  const words = hit.scores.lexicalWords
  return {
    semantic: hit.scores.semantic,
    lexical:
      hit.scores.lexical !== null && !hit.scores.fuzzy && words !== null && words.matched >= Math.min(LEXICAL_MIN_WORDS, words.total),
    linked: hit.scores.linkedFrom !== undefined,
  }
}

/** Every golden query through hybrid recall (read-only), each record marked held back or not (every other query of its kind). */
export async function floorRecords(
  deps: { db: Db, embedder: Embedder },
  golden: GoldenSet,
): Promise<{ model: string | null, floor: number, records: FloorRecord[] }> {
  const vectors = await queryVectors(
    deps.embedder,
    golden.queries.map(query => query.query),
  )
  const seen = new Map<string, number>()
  const records: FloorRecord[] = []
  let floor = 0
  for (const [index, item] of golden.queries.entries()) {
    const kind = item.kind ?? DEFAULT_KIND
    const position = seen.get(kind) ?? 0
    seen.set(kind, position + 1)
    const response = await recall(
      { db: deps.db, embedder: deps.embedder },
      { query: item.query, k: golden.k, mode: 'hybrid', readOnly: true, queryVector: vectors[index] },
    )
    floor = response.floor.semantic
    const hits
      = kind === 'unanswerable'
        ? response.hits
        : item.expected
            .map(expected => response.hits.find(hit => matches(expected, hit)))
            .filter((hit): hit is RecallHit => hit !== undefined)
    records.push({ id: item.id ?? `q${index + 1}`, kind, heldBack: position % 2 === 1, hits: hits.map(toFloorHit) })
  }
  return { model: vectors[0]?.model ?? null, floor, records }
}

export function calibrate(model: string | null, current: number, records: FloorRecord[]): FloorCalibration {
  const suggested = suggestFloor(records, current)
  const halves = (floor: number) => ({
    floor,
    calibration: floorShares(
      records.filter(record => !record.heldBack),
      floor,
    ),
    heldBack: floorShares(
      records.filter(record => record.heldBack),
      floor,
    ),
  })
  return { model, current: halves(current), suggested: halves(suggested) }
}
