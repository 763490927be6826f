// The offline embedder: deterministic 1024-dimension vectors from hashed words and
// character trigrams (the "hashing trick"), L2-normalised. No model: texts sharing words
// and word fragments land close, which is enough for demos, tests and benchmarks.

const WORD_WEIGHT = 1
const GRAM_WEIGHT = 0.5

/** FNV-1a, 32 bits. */
function fnv1a(text: string): number {
  let hash = 0x811C9DC5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

export function normaliseText(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036F]/g, '').toLowerCase()
}

export function words(text: string): string[] {
  return normaliseText(text).split(/[^a-z0-9]+/).filter(Boolean)
}

function add(vector: Float64Array, feature: string, weight: number): void {
  const hash = fnv1a(feature)
  const index = hash % vector.length
  const sign = (hash >>> 31) === 1 ? -1 : 1
  vector[index]! += sign * weight
}

export function offlineEmbedding(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions)
  for (const word of words(text)) {
    add(vector, `w:${word}`, WORD_WEIGHT)
    const padded = `#${word}#`
    for (let i = 0; i + 3 <= padded.length; i++) add(vector, `g:${padded.slice(i, i + 3)}`, GRAM_WEIGHT)
  }
  let norm = 0
  for (let i = 0; i < dimensions; i++) norm += vector[i]! * vector[i]!
  if (norm === 0) {
    // An empty text still gets a unit vector (a zero vector has no cosine).
    vector[0] = 1
    norm = 1
  }
  const scale = 1 / Math.sqrt(norm)
  // Indexed loops, not iterators: a recall embeds its query on the hot path, and an
  // iterator's per-element results were most of what a recall allocated (bench/memory.bench.ts).
  const unit = new Array<number>(dimensions)
  for (let i = 0; i < dimensions; i++) unit[i] = vector[i]! * scale
  return unit
}
