// Memory: the growth curve of hybrid recall (p50 / p95 at 10,000, 100,000 and 300,000
// chunks, in one run), 8 recalls at once at 100,000, HNSW against an exact scan (strict
// recall@10 on a tie-free corpus), and a vector sync with nothing new over 10,000 sources —
// on native PostgreSQL, with the offline embedder (deterministic, in-process: what is
// measured is the database and the engine, not a provider); and the 10,000-chunk hybrid p95
// on the embedded database too. Chunks are bulk-loaded without the HNSW index, which is then
// built once (as pgvector recommends) with the migration's own definition. The native figures
// come from a PostgreSQL cluster of the bench's own (the machine's PostgreSQL 15 binaries),
// its shared_buffers sized to the 300,000-chunk index and on huge pages, as the README advises
// for production (MEMORY_BENCH_SHARED_BUFFERS, default 2GB; `server` measures on
// TEST_NATIVE_DATABASE_URL's server as it is configured instead; MEMORY_BENCH_HUGE_PAGES=off
// keeps the cluster on 4 kB pages).
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { connectDatabase, type Database } from '#db/connection'
import { learnLessons } from '#db/schema/learn'
import { offlineEmbedding } from '#layers/ai/core/offline/embed'
import { createAiFacade } from '#layers/ai/core/facade'
import { recall } from '#layers/memory/core/recall/engine'
import { efSearchFor, HNSW_BUILD, semanticQuery } from '#layers/memory/core/recall/arms'
import { turnsLimit } from '#layers/memory/core/recall/turns'
import { startTestCluster, type TestCluster } from '#tests/helpers/pg-cluster'
import { reserveHugePages, settingBytes, type HugePages } from './huge-pages'
import { OVERFETCH } from '#layers/memory/core/recall/types'
import { facadeEmbedder, type Embedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { BENCH_DIMENSIONS, BENCH_MODEL, NOISE, STRICT_CLUSTERS, STRICT_SPREAD, corpus, loadChunks, loadStrictCorpus, strictQueries, vectorText } from './memory-corpus'
import { percentile, sample, sized, type BenchFigure } from './lib'

const HNSW_INDEX = 'mem_embeddings_embedding_hnsw_idx'
/**
 * Shrinks every size for a smoke run of the bench's code (figures at another scale than their
 * names say: never published). BENCH_SIZE=tiny (bench/lib.ts) defaults it to 0.005 (50, 500
 * and 1,500 chunks), with 10 recall queries, 5 exact ones and 128MB of shared buffers.
 */
const SCALE = Number(process.env.MEMORY_BENCH_SCALE ?? sized(1, 0.005))
const SOURCES_10K = Math.round(10_000 * SCALE)
const CHUNKS_100K = Math.round(100_000 * SCALE)
const CHUNKS_300K = Math.round(300_000 * SCALE)
const RECALL_QUERIES = sized(200, 10)
const EXACT_QUERIES = sized(40, 5)
const CONCURRENCY = 8
const K = 10
const OFFLINE = { AI_OFFLINE: '1' }
const SHARED_BUFFERS = process.env.MEMORY_BENCH_SHARED_BUFFERS?.trim() || sized('2GB', '128MB')
const HUGE_PAGES = process.env.MEMORY_BENCH_HUGE_PAGES?.trim() !== 'off'

const log = (line: string) => process.stderr.write(`[bench] memory: ${line}\n`)
const round = (value: number, digits = 2) => Number(value.toFixed(digits))
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9

function countingEmbedder(inner: Embedder): Embedder & { calls: number } {
  const embedder = { calls: 0, target: inner.target, embed: async (texts: string[], inputType: 'query' | 'document') => {
    embedder.calls++
    return await inner.embed(texts, inputType)
  } }
  return embedder
}

/** Builds an index once after a load, with maintenance_work_mem raised; returns seconds. */
async function buildIndex(database: Database, definition: string): Promise<number> {
  const start = process.hrtime.bigint()
  await database.sql.begin(async (tx) => {
    await tx.unsafe(`set local maintenance_work_mem = '1GB'`)
    await tx.unsafe(definition)
  })
  return seconds(start)
}

/** Drops the HNSW index, loads, rebuilds it with its own definition, analyses; returns the build's seconds. */
async function withoutIndex(database: Database, load: () => Promise<void>): Promise<number> {
  const [definition] = await database.db.execute<{ def: string }>(sql`select pg_get_indexdef(${HNSW_INDEX}::regclass) as def`)
  await database.db.execute(sql.raw(`drop index ${HNSW_INDEX}`))
  await load()
  const build = await buildIndex(database, definition!.def)
  await database.db.execute(sql`vacuum analyze mem_embeddings`)
  // The load's dirty pages written now, and on to the disk, not by a checkpoint or the
  // kernel's writeback in the middle of the measures.
  try {
    await database.db.execute(sql`checkpoint`)
  }
  catch (error) {
    log(`no checkpoint after the load (${(error as Error).message}): a later one may land in the measures`)
  }
  execFileSync('sync')
  return build
}

/**
 * Each query's latency, one at a time, after a whole pass over `warmup` (other queries drawn
 * the same way): a server that has been answering recalls holds the index's pages in its
 * buffers, where a fresh build has left them on disk; replaying the measured queries
 * themselves would warm exactly the pages they read.
 */
async function hybridLatencies(database: Database, embedder: Embedder, queries: string[], warmup: string[]): Promise<number[]> {
  const once = async (query: string) => await recall({ db: database.db, embedder }, { query, k: K, mode: 'hybrid', readOnly: true })
  for (const query of warmup) await once(query)
  let i = 0
  const micros = await sample(async () => await once(queries[i++]!), queries.length, 0)
  return micros.map(us => us / 1000)
}

/**
 * CONCURRENCY recalls in flight at every moment, on a pool as large as the hub's; each one's
 * latency, in the steady state of a pool under that load: two whole passes over `warmup`
 * first. A new connection's first recall costs ~80 ms more (its session loads the catalog, the
 * statistics of the text column and the French dictionary), and a new pool's first pass at 8
 * at once read p50 150–210 ms, its second 71–87, its third 63–70 (probe at 100,000 chunks):
 * one pass left part of the warm-up in the measure.
 */
async function concurrentLatencies(url: string, embedder: Embedder, queries: string[], warmup: string[]): Promise<number[]> {
  const database = await connectDatabase(url, { max: 10 })
  try {
    const run = async (list: string[]) => {
      const latencies: number[] = []
      let next = 0
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        for (let index = next++; index < list.length; index = next++) {
          const start = process.hrtime.bigint()
          await recall({ db: database.db, embedder }, { query: list[index]!, k: K, mode: 'hybrid', readOnly: true })
          latencies.push(Number(process.hrtime.bigint() - start) / 1e6)
        }
      }))
      return latencies
    }
    await run(warmup)
    await run(warmup)
    return await run(queries)
  }
  finally {
    await database.close()
  }
}

interface TopK { ids: string[], distances: number[], ms: number }

/**
 * The semantic arm's top k on mem_embeddings as recall runs it (k × OVERFETCH on the index, re-ranked exactly), or the exact top k (a
 * sequential scan).
 */
async function recallTopK(database: Database, vector: string, exact: boolean): Promise<TopK> {
  const filter = { types: null, agent: null, limit: K * OVERFETCH }
  return await database.db.transaction(async (tx) => {
    // The exact scan's plan reads no HNSW setting; recall's statement sets its own.
    const start = process.hrtime.bigint()
    const rows = exact
      ? await tx.execute<{ id: string, distance: number }>(
          sql`select source_id as id, (embedding <=> ${vector}::vector)::float8 as distance from mem_embeddings where model = ${BENCH_MODEL} order by embedding <=> ${vector}::vector limit ${K}`,
        )
      : (
          await tx.execute<{ source_id: string, score: number }>(
            semanticQuery(vector, BENCH_MODEL, filter, { dimensions: BENCH_DIMENSIONS, halfPrecision: true }),
          )
        )
          .slice(0, K)
          .map(row => ({ id: row.source_id, distance: 1 - Number(row.score) }))
    return {
      ids: rows.map(row => row.id),
      distances: rows.map(row => Number(row.distance)),
      ms: Number(process.hrtime.bigint() - start) / 1e6,
    }
  })
}

/** The same on the strict-recall table: its index has recall's definition, the query recall's shape. */
async function strictTopK(database: Database, vector: string, exact: boolean): Promise<TopK> {
  const fetch = K * OVERFETCH
  return await database.sql.begin(async (tx) => {
    await tx.unsafe(`set local hnsw.iterative_scan = relaxed_order`)
    await tx.unsafe(`set local hnsw.ef_search = ${efSearchFor(fetch)}`)
    const start = process.hrtime.bigint()
    const rows = exact
      ? await tx.unsafe<Array<{ id: string, distance: number }>>(`select id::text, (embedding <=> $1::vector)::float8 as distance from bench_strict_vectors order by embedding <=> $1::vector limit ${K}`, [vector])
      : await tx.unsafe<Array<{ id: string, distance: number }>>(`with c as materialized (
          select id, embedding <=> $1::vector as distance from bench_strict_vectors
          order by embedding::halfvec(${BENCH_DIMENSIONS}) <=> $1::halfvec(${BENCH_DIMENSIONS}) limit ${fetch})
        select id::text, distance::float8 from c order by distance limit ${K}`, [vector])
    return {
      ids: rows.map(row => row.id),
      distances: rows.map(row => Number(row.distance)),
      ms: Number(process.hrtime.bigint() - start) / 1e6,
    }
  })
}

/** Strict recall@k (id overlap with the exact top k), tie-aware recall (as close as the exact k-th), and latencies. */
async function compare(vectors: string[], top: (vector: string, exact: boolean) => Promise<TopK>) {
  const approximateMs: number[] = []
  const exactMs: number[] = []
  let overlap = 0
  let withinKth = 0
  for (const vector of vectors) {
    await top(vector, false)
    const approximate = await top(vector, false)
    const exact = await top(vector, true)
    approximateMs.push(approximate.ms)
    exactMs.push(exact.ms)
    overlap += approximate.ids.filter(id => exact.ids.includes(id)).length / K
    const kth = exact.distances[K - 1] ?? Number.POSITIVE_INFINITY
    withinKth += approximate.distances.filter(distance => distance <= kth + 1e-9).length / K
  }
  return {
    strict: overlap / vectors.length,
    tieAware: withinKth / vectors.length,
    approximateP50: percentile(approximateMs, 50),
    exactP50: percentile(exactMs, 50),
  }
}

const latencyFigures = (label: string, latencies: number[], context: Record<string, unknown>): BenchFigure[] => [
  { name: `memory.recall_hybrid_p50_ms_${label}`, value: round(percentile(latencies, 50)), unit: 'ms', lowerIsBetter: true, context },
  { name: `memory.recall_hybrid_p95_ms_${label}`, value: round(percentile(latencies, 95)), unit: 'ms', lowerIsBetter: true, context },
]

/** The bench's own cluster, on huge pages when the kernel has (or gives) them; `stop` gives both back. */
async function benchCluster(): Promise<{ cluster: TestCluster, hugePages: HugePages, stop: () => void }> {
  const hugePages = HUGE_PAGES ? reserveHugePages(settingBytes(SHARED_BUFFERS), log) : { enabled: false, reason: 'MEMORY_BENCH_HUGE_PAGES=off', release: () => {} }
  try {
    const cluster = await startTestCluster('bench-memory', { shared_buffers: SHARED_BUFFERS, huge_pages: hugePages.enabled ? 'on' : 'off' })
    const stop = () => {
      try {
        cluster.stop()
      }
      finally {
        hugePages.release()
      }
    }
    return { cluster, hugePages, stop }
  }
  catch (error) {
    hugePages.release()
    throw error
  }
}

async function nativeFigures(): Promise<BenchFigure[]> {
  const own = SHARED_BUFFERS === 'server' ? null : await benchCluster()
  const cluster = own?.cluster ?? null
  if (own && !own.hugePages.enabled) log(`the cluster runs on 4 kB pages: ${own.hugePages.reason}`)
  const database = await nativeBenchDatabase('memory', { max: 3, ...(cluster ? { adminUrl: `postgres://postgres@127.0.0.1:${cluster.port}/postgres` } : {}) }).catch((error: unknown) => {
    own?.stop()
    throw error
  })
  try {
    const words = corpus(7)
    const ai = createAiFacade({ env: OFFLINE, db: database.db, embedThrottleMs: 0, log: () => {} })
    const embedder = countingEmbedder(facadeEmbedder(ai, { feature: 'memory_bench' }))
    const [server] = await database.sql<Array<{ sharedBuffers: string }>>`select current_setting('shared_buffers') as "sharedBuffers"`
    const context = {
      database: `native PostgreSQL 15 + pgvector 0.8.0, ${cluster ? 'a cluster of the bench\'s own (fsync off for the loads)' : 'the TEST_NATIVE_DATABASE_URL server'}`,
      sharedBuffers: server!.sharedBuffers,
      hugePages: own ? (own.hugePages.enabled ? 'on' : `off: ${own.hugePages.reason}`) : 'as the server is configured',
      recallTurns: turnsLimit(process.env),
      embedder: 'offline (hash, 1024 dims)', index: 'HNSW on halfvec(1024), exact re-rank', k: K, overfetch: OVERFETCH, queries: RECALL_QUERIES,
    }
    log(`native figures on ${context.database}, shared_buffers ${context.sharedBuffers}, huge pages ${context.hugePages}, ${context.recallTurns} recall turns`)

    // 10,000 scars, embedded once by the real sync.
    for (let start = 0; start < SOURCES_10K; start += 1000) {
      await database.db.insert(learnLessons).values(Array.from({ length: Math.min(1000, SOURCES_10K - start) }, (_, i) => ({ title: `Scar ${start + i}`, description: words.text(), importance: (start + i) % 11 })))
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
      noChange.push(seconds(start))
      if (report.embedded !== 0) throw new Error(`a no-change sync embedded ${report.embedded} documents`)
    }
    const noChangeCalls = embedder.calls
    log(`no-change sync ${noChange.map(s => s.toFixed(2)).join(' / ')} s, ${noChangeCalls} embedding call(s)`)

    const queries = Array.from({ length: RECALL_QUERIES }, () => words.query())
    // Drawn from a corpus of its own: the chunks loaded next stay the ones the seed gives.
    const others = corpus(13)
    const warmup = Array.from({ length: RECALL_QUERIES }, () => others.query())
    const at10k = await hybridLatencies(database, embedder, queries, warmup)
    log(`hybrid at 10k: p50 ${percentile(at10k, 50).toFixed(2)} ms, p95 ${percentile(at10k, 95).toFixed(2)} ms`)

    // 100,000: 90,000 notes more, loaded a thousand rows per statement, the index built once.
    let started = process.hrtime.bigint()
    const indexBuild100k = await withoutIndex(database, () => loadChunks(database, SOURCES_10K, CHUNKS_100K, () => words.text()))
    const load100k = seconds(started)
    log(`loaded ${CHUNKS_100K} chunks in ${load100k.toFixed(0)} s (HNSW build ${indexBuild100k.toFixed(0)} s)`)
    const at100k = await hybridLatencies(database, embedder, queries, warmup)
    log(`hybrid at 100k: p50 ${percentile(at100k, 50).toFixed(2)} ms, p95 ${percentile(at100k, 95).toFixed(2)} ms`)
    const at100kC8 = await concurrentLatencies(database.url, embedder, queries, warmup)
    log(`hybrid at 100k, ${CONCURRENCY} at once: p50 ${percentile(at100kC8, 50).toFixed(2)} ms, p95 ${percentile(at100kC8, 95).toFixed(2)} ms`)

    // The recall index against an exact scan: on the bench's own chunks (their vectors tie
    // but for the seeded noise) and on a tie-free clustered corpus of 100,000 vectors.
    const bagOfWords = await compare(
      queries.slice(0, EXACT_QUERIES).map(query => vectorText(offlineEmbedding(query, BENCH_DIMENSIONS))),
      (vector, exact) => recallTopK(database, vector, exact),
    )
    started = process.hrtime.bigint()
    await loadStrictCorpus(database, CHUNKS_100K, 0.17)
    const strictBuild = await buildIndex(database, `create index bench_strict_hnsw_idx on bench_strict_vectors using hnsw ((embedding::halfvec(${BENCH_DIMENSIONS})) halfvec_cosine_ops) ${HNSW_BUILD}`)
    await database.sql.unsafe('vacuum analyze bench_strict_vectors')
    log(`strict corpus: ${CHUNKS_100K} vectors in ${seconds(started).toFixed(0)} s (HNSW build ${strictBuild.toFixed(0)} s)`)
    const strict = await compare(await strictQueries(database, EXACT_QUERIES, 0.29), (vector, exact) => strictTopK(database, vector, exact))
    await database.sql.unsafe('drop table bench_strict_vectors, bench_strict_centres')
    log(`recall@10 strict: ${strict.strict.toFixed(3)} (clustered, tie-free), ${bagOfWords.strict.toFixed(3)} on the bench chunks (tie-aware ${bagOfWords.tieAware.toFixed(3)})`)

    // 300,000: 200,000 notes more, the index rebuilt once.
    started = process.hrtime.bigint()
    const indexBuild300k = await withoutIndex(database, () => loadChunks(database, CHUNKS_100K, CHUNKS_300K, () => words.text()))
    log(`loaded ${CHUNKS_300K} chunks in ${seconds(started).toFixed(0)} s (HNSW build ${indexBuild300k.toFixed(0)} s)`)
    const at300k = await hybridLatencies(database, embedder, queries, warmup)
    log(`hybrid at 300k: p50 ${percentile(at300k, 50).toFixed(2)} ms, p95 ${percentile(at300k, 95).toFixed(2)} ms`)

    const efSearch = efSearchFor(K * OVERFETCH)
    return [
      ...latencyFigures('10k', at10k, { ...context, chunks: SOURCES_10K, hnswBuildS: round(indexBuild10k, 1) }),
      ...latencyFigures('100k', at100k, { ...context, chunks: CHUNKS_100K, hnswBuildS: round(indexBuild100k, 1), loadS: round(load100k, 1) }),
      ...latencyFigures('300k', at300k, { ...context, chunks: CHUNKS_300K, hnswBuildS: round(indexBuild300k, 1) }),
      ...latencyFigures('100k_c8', at100kC8, { ...context, chunks: CHUNKS_100K, concurrency: CONCURRENCY, pool: 10, goalP95Ms: 100 }),
      { name: 'memory.hnsw_recall_at_10_strict_100k', value: round(strict.strict, 3), unit: 'ratio', lowerIsBetter: false, context: { ...context, chunks: CHUNKS_100K, queries: EXACT_QUERIES, efSearch, definition: 'id overlap of the index top 10 (k × 3 fetched on halfvec HNSW, re-ranked exactly) with the exact top 10 (sequential scan, full precision)', corpus: `tie-free: ${STRICT_CLUSTERS} random centres (components uniform in ±1), each vector a centre + uniform noise × ${STRICT_SPREAD}, queries fresh points drawn the same way; seeded SQL random()`, hnswBuildS: round(strictBuild, 1), hnswP50Ms: round(strict.approximateP50), exactP50Ms: round(strict.exactP50) } },
      { name: 'memory.hnsw_vs_exact_latency_ratio_100k', value: round(bagOfWords.exactP50 / bagOfWords.approximateP50, 1), unit: 'x', lowerIsBetter: false, context: { ...context, chunks: CHUNKS_100K, queries: EXACT_QUERIES, hnswP50Ms: round(bagOfWords.approximateP50), exactP50Ms: round(bagOfWords.exactP50), exact: 'enable_indexscan = off (sequential scan and sort)' } },
      { name: 'memory.hnsw_recall_at_10_100k', value: round(bagOfWords.tieAware, 3), unit: 'ratio', lowerIsBetter: false, context: { ...context, chunks: CHUNKS_100K, queries: EXACT_QUERIES, efSearch, iterativeScan: 'relaxed_order', definition: `share of the index's top 10 at a distance no greater than the exact 10th neighbour, on the bench's chunks (offline bag-of-words vectors + a seeded noise of ±${NOISE} per component: near-ties remain)`, strictIdOverlap: round(bagOfWords.strict, 3) } },
      { name: 'memory.vector_sync_nochange_s_10k', value: round(percentile(noChange, 50), 3), unit: 's', lowerIsBetter: true, context: { ...context, sources: SOURCES_10K, runs: noChange.length, allSourceTypes: true } },
      { name: 'memory.vector_sync_nochange_embed_calls', value: noChangeCalls, unit: 'calls', lowerIsBetter: true, context: { ...context, sources: SOURCES_10K, runs: noChange.length } },
    ]
  }
  finally {
    await database.close()
    own?.stop()
  }
}

async function embeddedFigure(): Promise<BenchFigure> {
  const database = await embeddedBenchDatabase('memory', { max: 3 })
  try {
    const words = corpus(11)
    const build = await withoutIndex(database, () => loadChunks(database, 0, SOURCES_10K, () => words.text()))
    const ai = createAiFacade({ env: OFFLINE, embedThrottleMs: 0, log: () => {} })
    const embedder = facadeEmbedder(ai, { feature: 'memory_bench' })
    const others = corpus(13)
    const latencies = await hybridLatencies(
      database,
      embedder,
      Array.from({ length: RECALL_QUERIES }, () => words.query()),
      Array.from({ length: RECALL_QUERIES }, () => others.query()),
    )
    log(`embedded hybrid at 10k: p95 ${percentile(latencies, 95).toFixed(2)} ms (HNSW build ${build.toFixed(0)} s)`)
    return { name: 'memory.recall_hybrid_p95_ms_10k_embedded', value: round(percentile(latencies, 95)), unit: 'ms', lowerIsBetter: true, context: { database: 'embedded PGlite + pgvector 0.8.7 over pglite-socket', embedder: 'offline (hash, 1024 dims)', index: 'HNSW on vector(1024) (PGlite keeps full precision)', chunks: SOURCES_10K, k: K, queries: RECALL_QUERIES, hnswBuildS: round(build, 1) } }
  }
  finally {
    await database.close()
  }
}

export default async function (): Promise<BenchFigure[]> {
  const started = process.hrtime.bigint()
  const figures = [...await nativeFigures(), await embeddedFigure()]
  log(`memory bench took ${(seconds(started) / 60).toFixed(1)} min`)
  return figures
}
