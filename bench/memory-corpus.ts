// The memory bench's synthetic corpus and its bulk loader. Texts are a deterministic
// synthetic language (Zipf-like frequencies over 3,000 words); each chunk's vector is the
// offline embedder's plus a small seeded noise unique to the chunk, so no two chunks are at
// the same distance from a query: the offline embedder hashes words, and its bag-of-words
// vectors tie, which would make a strict (id-overlap) recall@10 meaningless.
import type { Database } from '#db/connection'
import { offlineEmbedding } from '#layers/ai/core/offline/embed'

export const BENCH_MODEL = 'offline-hash-1024'
export const BENCH_DIMENSIONS = 1024
/** Each component's noise is uniform in ±NOISE before re-normalisation (≈ 4 % of the vector's norm). */
export const NOISE = 0.002
const ROWS_PER_STATEMENT = 1000

export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  // mulberry32: fast, well spread, deterministic.
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function corpus(seed: number) {
  const words = Array.from({ length: 3000 }, (_, i) => `mot${i.toString(36)}`)
  const random = seededRandom(seed)
  const word = () => words[Math.floor(random() ** 2 * words.length)]!
  return {
    text: (length = 14) => Array.from({ length }, word).join(' '),
    query: () => `${word()} ${word()} ${word()}`,
  }
}

/** The offline vector with a noise seeded by `seed`, unit length. */
export function noisyVector(text: string, seed: number): number[] {
  const random = seededRandom(seed * 2654435761)
  const vector = offlineEmbedding(text, BENCH_DIMENSIONS).map(value => value + (random() * 2 - 1) * NOISE)
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))
  return vector.map(value => value / norm)
}

export const vectorText = (vector: number[]) => `[${vector.map(value => (value === 0 ? '0' : value.toPrecision(6))).join(',')}]`

/**
 * Chunks `from`…`to` (exclusive) as notes, a thousand rows per statement through unnest
 * (not a round trip per row); each text from `text()`, each vector seeded by its number.
 */
export async function loadChunks(database: Database, from: number, to: number, text: () => string): Promise<void> {
  for (let start = from; start < to; start += ROWS_PER_STATEMENT) {
    const ids: string[] = []
    const titles: string[] = []
    const contents: string[] = []
    const vectors: string[] = []
    for (let i = start; i < Math.min(to, start + ROWS_PER_STATEMENT); i++) {
      const content = text()
      ids.push(`bench/${i}.md`)
      titles.push(`Chunk ${i}`)
      contents.push(content)
      vectors.push(vectorText(noisyVector(content, i + 1)))
    }
    await database.sql`insert into mem_embeddings (source_type, source_id, title, content, fingerprint, provider, model, embedding)
      select 'note', id, title, content, repeat('0', 64), 'offline', ${BENCH_MODEL}, v::vector
      from unnest(${ids}::text[], ${titles}::text[], ${contents}::text[], ${vectors}::text[]) as t(id, title, content, v)`
  }
}

/**
 * The strict-recall corpus: `rows` vectors without ties, generated in SQL from a seed —
 * STRICT_CLUSTERS random centres (components uniform in ±1) and each vector a centre plus a
 * uniform noise of STRICT_SPREAD times the centre's scale, as real embeddings gather by
 * topic (200 vectors a centre: the search inside a cluster is the hard part). A query is a
 * fresh point drawn the same way. Held in its own table with the recall index's definition
 * (halfvec HNSW, cosine), built once after the load.
 */
export const STRICT_CLUSTERS = 500
export const STRICT_SPREAD = 1

export async function loadStrictCorpus(database: Database, rows: number, seed: number): Promise<void> {
  await database.sql.unsafe(`drop table if exists bench_strict_vectors, bench_strict_centres`)
  await database.sql.unsafe(`create table bench_strict_vectors (id bigint primary key, embedding vector(${BENCH_DIMENSIONS}) not null)`)
  await database.sql.begin(async (tx) => {
    await tx`select setseed(${seed})`
    // `where c >= 0` ties the draw to each centre: an uncorrelated sub-select would run once.
    await tx.unsafe(`create table bench_strict_centres as
      select c as id, array(select random() * 2 - 1 from generate_series(1, ${BENCH_DIMENSIONS}) where c >= 0)::float4[] as v from generate_series(0, ${STRICT_CLUSTERS - 1}) as c`)
    await tx.unsafe(`insert into bench_strict_vectors (id, embedding)
      select g, (select array_agg(u.x + ${STRICT_SPREAD} * (random() * 2 - 1) order by u.d) from unnest(c.v) with ordinality as u(x, d))::vector
      from generate_series(1, ${rows}) as g join bench_strict_centres c on c.id = g % ${STRICT_CLUSTERS}`)
  })
}

/** `count` queries drawn like the corpus's vectors (a centre plus noise), none of them in it. */
export async function strictQueries(database: Database, count: number, seed: number): Promise<string[]> {
  return await database.sql.begin(async (tx) => {
    await tx`select setseed(${seed})`
    const rows = await tx.unsafe<Array<{ v: string }>>(`select (select array_agg(u.x + ${STRICT_SPREAD} * (random() * 2 - 1) order by u.d) from unnest(c.v) with ordinality as u(x, d))::vector::text as v
      from generate_series(1, ${count}) as q join bench_strict_centres c on c.id = (q * 7919) % ${STRICT_CLUSTERS}`)
    return rows.map(row => row.v)
  })
}
