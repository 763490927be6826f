// Memory: hybrid recall latency at 10,000 and 100,000 chunks, HNSW against an exact scan,
// and a vector sync with nothing new over 10,000 sources — on native PostgreSQL, with the
// offline embedder (deterministic, in-process: what is measured is the database and the
// engine, not a provider); and the 10,000-chunk hybrid p95 on the embedded database too.
// Chunks are bulk-loaded without the HNSW index, which is then built once (as pgvector
// recommends), with the migration's own definition.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { Database } from '../db/connection'
import { learnLessons } from '../db/schema/learn'
import { offlineEmbedding } from '../layers/ai/core/offline/embed'
import { createAiFacade } from '../layers/ai/core/facade'
import { recall } from '../layers/memory/core/recall/engine'
import { efSearchFor, semanticQuery, semanticSettings } from '../layers/memory/core/recall/arms'
import { facadeEmbedder, type Embedder } from '../layers/memory/core/vectors/embedder'
import { syncVectors } from '../layers/memory/core/vectors/sync'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { percentile, sample, type BenchFigure } from './lib'

const HNSW_INDEX = 'mem_embeddings_embedding_hnsw_idx'
const MODEL = 'offline-hash-1024'
const SOURCES_10K = 10_000
const CHUNKS_100K = 100_000
const RECALL_QUERIES = 200
const EXACT_QUERIES = 40
const OFFLINE = { AI_OFFLINE: '1' }

const log = (line: string) => process.stderr.write(`[bench] memory: ${line}\n`)

/** A deterministic synthetic language: Zipf-like word frequencies over 3,000 words. */
function corpus(seed: number) {
  const words = Array.from({ length: 3000 }, (_, i) => `mot${i.toString(36)}`)
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  const word = () => words[Math.floor(random() ** 2 * words.length)]!
  return {
    text: (length = 14) => Array.from({ length }, word).join(' '),
    query: () => `${word()} ${word()} ${word()}`,
  }
}

const literal = (text: string) => `[${offlineEmbedding(text, 1024).map(value => (value === 0 ? '0' : value.toPrecision(6))).join(',')}]`

function countingEmbedder(inner: Embedder): Embedder & { calls: number } {
  const embedder = { calls: 0, target: inner.target, embed: async (texts: string[], inputType: 'query' | 'document') => {
    embedder.calls++
    return await inner.embed(texts, inputType)
  } }
  return embedder
}

async function withoutIndex(database: Database, load: () => Promise<void>): Promise<number> {
  const [definition] = await database.db.execute<{ def: string }>(sql`select pg_get_indexdef(${HNSW_INDEX}::regclass) as def`)
  await database.db.execute(sql.raw(`drop index ${HNSW_INDEX}`))
  await load()
  const start = process.hrtime.bigint()
  await database.sql.begin(async (tx) => {
    await tx.unsafe(`set local maintenance_work_mem = '1GB'`)
    await tx.unsafe(definition!.def)
  })
  await database.db.execute(sql`analyze mem_embeddings`)
  return Number(process.hrtime.bigint() - start) / 1e9
}

async function insertChunks(database: Database, from: number, to: number, text: () => string): Promise<void> {
  for (let start = from; start < to; start += 250) {
    const rows = []
    for (let i = start; i < Math.min(to, start + 250); i++) {
      const content = text()
      rows.push(sql`('note', ${`bench/${i}.md`}, ${`Chunk ${i}`}, ${content}, ${'0'.repeat(64)}, 'offline', ${MODEL}, ${literal(content)}::vector)`)
    }
    await database.db.execute(sql`insert into mem_embeddings (source_type, source_id, title, content, fingerprint, provider, model, embedding) values ${sql.join(rows, sql`, `)}`)
  }
}

async function hybridLatencies(database: Database, embedder: Embedder, queries: string[]): Promise<number[]> {
  let i = 0
  const micros = await sample(async () => {
    await recall({ db: database.db, embedder }, { query: queries[i++ % queries.length]!, k: 10, mode: 'hybrid', readOnly: true })
  }, queries.length, 20)
  return micros.map(us => us / 1000)
}

async function semanticTop10(database: Database, vector: string, exact: boolean): Promise<{ ids: string[], distances: number[], ms: number }> {
  const filter = { types: null, agent: null, limit: 10 }
  return await database.db.transaction(async (tx) => {
    for (const setting of semanticSettings(filter.limit)) await tx.execute(setting)
    if (exact) await tx.execute(sql`set local enable_indexscan = off`)
    const start = process.hrtime.bigint()
    const rows = await tx.execute<{ source_id: string, score: number }>(semanticQuery(vector, MODEL, filter))
    return { ids: rows.map(row => row.source_id), distances: rows.map(row => 1 - Number(row.score)), ms: Number(process.hrtime.bigint() - start) / 1e6 }
  })
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits))

async function nativeFigures(): Promise<BenchFigure[]> {
  const database = await nativeBenchDatabase('memory', { max: 3 })
  try {
    const words = corpus(7)
    const ai = createAiFacade({ env: OFFLINE, db: database.db, embedThrottleMs: 0, log: () => {} })
    const embedder = countingEmbedder(facadeEmbedder(ai, { feature: 'memory_bench' }))

    // 10,000 scars, embedded once by the real sync.
    for (let start = 0; start < SOURCES_10K; start += 1000) {
      await database.db.insert(learnLessons).values(Array.from({ length: 1000 }, (_, i) => ({ title: `Scar ${start + i}`, description: words.text(), importance: (start + i) % 11 })))
    }
    const indexBuild10k = await withoutIndex(database, async () => {
      const first = await syncVectors({ db: database.db, embedder, reflexDir: join(tmpdir(), 'synedre-bench-no-reflex') }, { sources: ['scar'] })
      log(`first sync embedded ${first.embedded} scars in ${first.embedCalls} calls`)
    })
    await ai.flush()

    const noChange: number[] = []
    embedder.calls = 0
    for (let round = 0; round < 3; round++) {
      const start = process.hrtime.bigint()
      const report = await syncVectors({ db: database.db, embedder, reflexDir: join(tmpdir(), 'synedre-bench-no-reflex') })
      noChange.push(Number(process.hrtime.bigint() - start) / 1e9)
      if (report.embedded !== 0) throw new Error(`a no-change sync embedded ${report.embedded} documents`)
    }
    const noChangeCalls = embedder.calls
    log(`no-change sync ${noChange.map(s => s.toFixed(2)).join(' / ')} s, ${noChangeCalls} embedding call(s)`)

    const queries = Array.from({ length: RECALL_QUERIES }, () => words.query())
    const at10k = await hybridLatencies(database, embedder, queries)
    log(`hybrid at 10k: p50 ${percentile(at10k, 50).toFixed(2)} ms, p95 ${percentile(at10k, 95).toFixed(2)} ms`)

    const started = Date.now()
    const indexBuild100k = await withoutIndex(database, () => insertChunks(database, SOURCES_10K, CHUNKS_100K, () => words.text()))
    log(`loaded ${CHUNKS_100K} chunks in ${((Date.now() - started) / 1000).toFixed(0)} s (HNSW build ${indexBuild100k.toFixed(0)} s)`)
    const at100k = await hybridLatencies(database, embedder, queries)
    log(`hybrid at 100k: p50 ${percentile(at100k, 50).toFixed(2)} ms, p95 ${percentile(at100k, 95).toFixed(2)} ms`)

    const hnswMs: number[] = []
    const exactMs: number[] = []
    let overlap = 0
    let withinTenth = 0
    for (const query of queries.slice(0, EXACT_QUERIES)) {
      const vector = literal(query)
      await semanticTop10(database, vector, false)
      const approximate = await semanticTop10(database, vector, false)
      const exact = await semanticTop10(database, vector, true)
      hnswMs.push(approximate.ms)
      exactMs.push(exact.ms)
      overlap += approximate.ids.filter(id => exact.ids.includes(id)).length / 10
      // Bag-of-words vectors tie a lot: a result as close as the exact 10th neighbour is a true top-10 result.
      const tenth = exact.distances[9] ?? Number.POSITIVE_INFINITY
      withinTenth += approximate.distances.filter(distance => distance <= tenth + 1e-9).length / 10
    }
    const hnswP50 = percentile(hnswMs, 50)
    const exactP50 = percentile(exactMs, 50)
    const context = { database: 'native PostgreSQL 15 + pgvector 0.8.0', embedder: 'offline (hash, 1024 dims)', k: 10, overfetch: 3, queries: RECALL_QUERIES }
    return [
      { name: 'memory.recall_hybrid_p50_ms_10k', value: round(percentile(at10k, 50)), unit: 'ms', lowerIsBetter: true, context: { ...context, chunks: SOURCES_10K, hnswBuildS: round(indexBuild10k, 1) } },
      { name: 'memory.recall_hybrid_p95_ms_10k', value: round(percentile(at10k, 95)), unit: 'ms', lowerIsBetter: true, context: { ...context, chunks: SOURCES_10K } },
      { name: 'memory.recall_hybrid_p50_ms_100k', value: round(percentile(at100k, 50)), unit: 'ms', lowerIsBetter: true, context: { ...context, chunks: CHUNKS_100K, hnswBuildS: round(indexBuild100k, 1) } },
      { name: 'memory.recall_hybrid_p95_ms_100k', value: round(percentile(at100k, 95)), unit: 'ms', lowerIsBetter: true, context: { ...context, chunks: CHUNKS_100K } },
      { name: 'memory.hnsw_vs_exact_latency_ratio_100k', value: round(exactP50 / hnswP50, 1), unit: 'x', lowerIsBetter: false, context: { ...context, chunks: CHUNKS_100K, queries: EXACT_QUERIES, hnswP50Ms: round(hnswP50), exactP50Ms: round(exactP50), exact: 'enable_indexscan = off (sequential scan and sort)' } },
      { name: 'memory.hnsw_recall_at_10_100k', value: round(withinTenth / EXACT_QUERIES, 3), unit: 'ratio', lowerIsBetter: false, context: { ...context, chunks: CHUNKS_100K, queries: EXACT_QUERIES, efSearch: efSearchFor(10), iterativeScan: 'relaxed_order', definition: 'share of the HNSW top 10 at a distance no greater than the exact 10th neighbour (ties count: the offline embedder is a bag of words)', strictIdOverlap: round(overlap / EXACT_QUERIES, 3) } },
      { name: 'memory.vector_sync_nochange_s_10k', value: round(percentile(noChange, 50), 3), unit: 's', lowerIsBetter: true, context: { ...context, sources: SOURCES_10K, runs: noChange.length, allSourceTypes: true } },
      { name: 'memory.vector_sync_nochange_embed_calls', value: noChangeCalls, unit: 'calls', lowerIsBetter: true, context: { ...context, sources: SOURCES_10K, runs: noChange.length } },
    ]
  }
  finally {
    await database.close()
  }
}

async function embeddedFigure(): Promise<BenchFigure> {
  const database = await embeddedBenchDatabase('memory', { max: 3 })
  try {
    const words = corpus(11)
    const build = await withoutIndex(database, () => insertChunks(database, 0, SOURCES_10K, () => words.text()))
    const ai = createAiFacade({ env: OFFLINE, embedThrottleMs: 0, log: () => {} })
    const embedder = facadeEmbedder(ai, { feature: 'memory_bench' })
    const latencies = await hybridLatencies(database, embedder, Array.from({ length: RECALL_QUERIES }, () => words.query()))
    log(`embedded hybrid at 10k: p95 ${percentile(latencies, 95).toFixed(2)} ms (HNSW build ${build.toFixed(0)} s)`)
    return { name: 'memory.recall_hybrid_p95_ms_10k_embedded', value: round(percentile(latencies, 95)), unit: 'ms', lowerIsBetter: true, context: { database: 'embedded PGlite + pgvector 0.8.7 over pglite-socket', embedder: 'offline (hash, 1024 dims)', chunks: SOURCES_10K, k: 10, queries: RECALL_QUERIES, hnswBuildS: round(build, 1) } }
  }
  finally {
    await database.close()
  }
}

export default async function (): Promise<BenchFigure[]> {
  return [...await nativeFigures(), await embeddedFigure()]
}
