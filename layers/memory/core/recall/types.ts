// The recall engine's vocabulary.
import type { SourceType } from '../sources'

export const RECALL_MODES = ['hybrid', 'sem', 'lex'] as const
export type RecallMode = typeof RECALL_MODES[number]

export const DEFAULT_K = 5
export const MAX_K = 100
/** Candidates fetched per arm: k × this (the seed's over-fetch, before the scar re-rank). */
export const OVERFETCH = 3
/** Reciprocal Rank Fusion's constant. */
export const RRF_K = 60

/** One candidate of one arm, before fusion. */
export interface Candidate {
  sourceType: SourceType
  sourceId: string
  title: string
  snippet: string
  agent: string | null
  /** Cosine similarity (sem) or ts_rank (lex). */
  score: number
  /** Lexical only: found through the expansion of a misspelt word, not by an exact word. */
  fuzzy?: boolean
  /** Lexical only: how many of the query's stems the document holds, of all of them. */
  words?: { matched: number, total: number }
  /** Scars: importance and creation time, read by the arm with the row (the re-rank's inputs). */
  lesson?: LessonMeta
}

export interface LessonMeta {
  importance: number | null
  createdAt: Date
}

export interface HitScores {
  /** Cosine similarity, when the semantic arm found it. */
  semantic: number | null
  /** Position in the semantic arm after the scar re-rank. */
  semanticRank: number | null
  /** ts_rank on the French tsvector, when the lexical arm found it. */
  lexical: number | null
  /** Position in the lexical arm after the scar re-rank. */
  lexicalRank: number | null
  /** The lexical match came from a misspelt word's expansion only (ranked after every exact one). */
  fuzzy: boolean
  /** Lexical: the query's stems the document holds, of all of them (the relevance floor's test). */
  lexicalWords: { matched: number, total: number } | null
  /** Hybrid only: Σ 1/(60 + rank) over the arms, on the re-ranked positions. */
  rrf: number | null
  /** Before the scar re-rank: the arm's score (sem, lex) or the RRF of the raw positions (hybrid). */
  base: number
  /** What the hits are ordered by: score × scar factor (sem, lex), the RRF (hybrid). */
  final: number
  /** Scars only: importance (0–10), age in days and the factor applied to their arm scores. */
  rerank: { importance: number, ageDays: number, factor: number } | null
  /** Hybrid: found one wiki link away from this note (its path) above the floor, not by the query itself (links.ts). */
  linkedFrom?: string
}

export interface RecallHit {
  rank: number
  sourceType: SourceType
  sourceId: string
  title: string
  snippet: string
  agent: string | null
  link: string | null
  scores: HitScores
  /** Below the relevance floor (floor.ts): neither an exact word nor a close enough meaning. */
  lowConfidence: boolean
}

/** What recall does with the hits below the relevance floor: flag them, or drop them (briefings). */
export const BELOW_FLOOR = ['flag', 'drop'] as const
export type BelowFloor = typeof BELOW_FLOOR[number]

export interface RecallResponse {
  query: string
  mode: RecallMode
  /** The mode actually served (lex when the embedding call failed). */
  modeUsed: RecallMode
  k: number
  scope: SourceType[]
  agent: string | null
  tenant: string | null
  /** The words the lexical arm OR-ed. */
  words: string[]
  fallback: { from: RecallMode, reason: string } | null
  /** Misspelt words and the stems they were expanded to. */
  expansions: Array<{ word: string, stems: string[] }>
  /** The relevance floor applied: the semantic similarity, and how many hits below it were dropped. */
  floor: { semantic: number, belowFloor: BelowFloor, dropped: number }
  /** No hit reached the floor: the vault has nothing relevant to say (hits, if any, are flagged). */
  lowConfidence: boolean
  /** Why, when lowConfidence: no hit at all, or none holding the query's words nor close enough in meaning. */
  lowConfidenceReason: string | null
  hits: RecallHit[]
  tookMs: number
}
