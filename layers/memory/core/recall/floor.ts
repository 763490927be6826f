// The relevance floor: recall can say "nothing relevant". A hit is relevant when the lexical
// arm matched one of the query's words exactly, or when its cosine similarity reaches the
// embedding model's semantic floor; every other hit (a least-bad neighbour, a fuzzy match
// only) is `lowConfidence`. A response whose hits are all below the floor is itself
// `lowConfidence`; with `belowFloor: 'drop'` (the agents' briefings) they are dropped.
//
// Floors are per model, because cosine scales differ between models. The offline embedder's
// was calibrated on the golden set (layers/memory/eval/golden.json over the seeded corpus):
// its expected hits' similarities start at 0.14 while queries the corpus cannot answer top
// out at 0.10 (see docs/memory.md, "the relevance floor"); other models take the seed's
// "below 0.65 requires manual review" unless RECALL_SEMANTIC_FLOOR says otherwise.

export const SEMANTIC_FLOORS: Record<string, number> = {
  'offline-hash-1024': 0.4,
}
export const DEFAULT_SEMANTIC_FLOOR = 0.65

export class FloorConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FloorConfigError'
  }
}

/** The semantic floor for a model: RECALL_SEMANTIC_FLOOR when set, else the model's calibrated one. */
export function semanticFloor(model: string | null, env: Record<string, string | undefined> = process.env): number {
  const configured = env.RECALL_SEMANTIC_FLOOR?.trim()
  if (configured) {
    const value = Number(configured)
    if (!Number.isFinite(value) || value < -1 || value > 1) throw new FloorConfigError(`RECALL_SEMANTIC_FLOOR="${configured}" is not a cosine similarity between -1 and 1`)
    return value
  }
  return (model ? SEMANTIC_FLOORS[model] : undefined) ?? DEFAULT_SEMANTIC_FLOOR
}

/** Stems of the query an exact lexical hit must hold (all of them when the query has fewer). */
export const LEXICAL_MIN_WORDS = 2

export interface FloorScores {
  semantic: number | null
  lexical: number | null
  fuzzy: boolean
  lexicalWords: { matched: number, total: number } | null
}

export function isRelevant(scores: FloorScores, floor: number): boolean {
  const words = scores.lexicalWords
  const lexical = scores.lexical !== null && !scores.fuzzy && words !== null && words.matched >= Math.min(LEXICAL_MIN_WORDS, words.total)
  return lexical || (scores.semantic !== null && scores.semantic >= floor)
}
