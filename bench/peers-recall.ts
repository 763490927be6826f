// Recall side by side with a peer (issue 17, deliver 9): our hybrid recall against mem0's
// open-source `Memory.search` (mem0ai, its pgvector store with an HNSW index, infer off: no
// LLM call), on the same corpus — the golden set's seeded corpus among synthetic notes —
// with the same embedder served from loopback, over the golden set's labelled queries.
// mem0 is not a dependency of the project: it is loaded from its own folder, MEM0_DIR (an
// `npm install mem0ai` there, see README). Without it, or when it fails, the peer is a plain
// pgvector top-k query (exact, no index) and the figures say why.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { Database } from '#db/connection'
import { offlineEmbedding } from '#layers/ai/core/offline/embed'
import { OFFLINE_EMBED_MODEL } from '#layers/ai/core/clients/offline'
import { createAiFacade } from '#layers/ai/core/facade'
import { seedEvalCorpus } from '#layers/memory/core/eval/golden-corpus'
import { parseGolden } from '#layers/memory/core/eval/golden'
import { queryMetrics, type Identified } from '#layers/memory/core/eval/metrics'
import { recall } from '#layers/memory/core/recall/engine'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { facadeEmbedder, type Embedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { nativeBenchDatabase } from './databases'
import { corpus, loadChunks } from './memory-corpus'
import { percentile, sized, type BenchFigure } from './lib'

const DIMENSIONS = 1024
const K = 10
// BENCH_SIZE=tiny (bench/lib.ts): one round, 50 synthetic notes.
const ROUNDS = sized(5, 1)
/** Synthetic notes around the golden corpus, so that neither side searches a toy table. */
const DISTRACTORS = Math.round(sized(5_000, 50) * Number(process.env.MEMORY_BENCH_SCALE ?? 1))
const HNSW_INDEX = 'mem_embeddings_embedding_hnsw_idx'
const log = (line: string) => process.stderr.write(`[bench] peers: ${line}\n`)
const round = (value: number, digits = 2) => Number(value.toFixed(digits))

/** The offline embedder as an OpenAI-compatible /v1/embeddings endpoint on loopback. */
async function embeddingServer(): Promise<{ url: string, server: Server }> {
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      const input = (JSON.parse(body) as { input: string | string[] }).input
      const texts = Array.isArray(input) ? input : [input]
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ object: 'list', model: OFFLINE_EMBED_MODEL, data: texts.map((text, index) => ({ object: 'embedding', index, embedding: offlineEmbedding(text, DIMENSIONS) })), usage: { prompt_tokens: 0, total_tokens: 0 } }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, server }
}

/** Our embedder through that endpoint: the same HTTP hop as the peer's. */
function httpEmbedder(url: string): Embedder {
  return {
    target: async () => ({ provider: 'openai-compat', model: OFFLINE_EMBED_MODEL, dimensions: DIMENSIONS }),
    embed: async (texts) => {
      const response = await fetch(`${url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: OFFLINE_EMBED_MODEL, input: texts }) })
      const data = await response.json() as { data: Array<{ embedding: number[] }> }
      return { vectors: data.data.map(item => item.embedding), provider: 'openai-compat', model: OFFLINE_EMBED_MODEL }
    },
  }
}

interface Chunk extends Identified { content: string }

/** The golden corpus, indexed and embedded as in production, among DISTRACTORS synthetic notes. */
async function seedCorpus(database: Database): Promise<Chunk[]> {
  const folder = mkdtempSync(join(tmpdir(), 'synedre-bench-peers-'))
  try {
    const folders = { vaultDir: join(folder, 'vault'), reflexDir: join(folder, 'reflex') }
    await seedEvalCorpus(database.db, folders)
    await indexNotes({ db: database.db, vaultDir: folders.vaultDir })
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db: database.db, embedThrottleMs: 0, log: () => {} })
    await syncVectors({ db: database.db, embedder: facadeEmbedder(ai, { feature: 'peers_bench' }), reflexDir: folders.reflexDir })
    await ai.flush()
  }
  finally {
    rmSync(folder, { recursive: true, force: true })
  }
  const [definition] = await database.db.execute<{ def: string }>(sql`select pg_get_indexdef(${HNSW_INDEX}::regclass) as def`)
  await database.db.execute(sql.raw(`drop index ${HNSW_INDEX}`))
  const words = corpus(13)
  await loadChunks(database, 0, DISTRACTORS, () => words.text())
  await database.sql.unsafe(definition!.def)
  await database.sql.unsafe('vacuum analyze mem_embeddings')
  const rows = await database.db.execute<{ source_type: string, source_id: string, title: string, content: string }>(sql`select source_type, source_id, title, content from mem_embeddings order by id`)
  return [...rows].map(row => ({ sourceType: row.source_type, sourceId: row.source_id, title: row.title, content: row.content }))
}

interface Peer {
  name: string
  search: (query: string) => Promise<Identified[]>
  close: () => Promise<void>
}

interface Mem0Memory {
  /** Its pgvector stores' single pg clients (mem0 has no close of its own). */
  vectorStore?: { client?: { end: () => Promise<void> } }
  _entityStore?: { client?: { end: () => Promise<void> } }
  add: (text: string, options: Record<string, unknown>) => Promise<unknown>
  search: (query: string, options: Record<string, unknown>) => Promise<{ results: Array<{ metadata?: Record<string, unknown> }> }>
}

/** mem0's OSS Memory on our PostgreSQL, every chunk added through its own API (infer off). */
async function mem0Peer(dir: string, database: Database, embedUrl: string, chunks: Chunk[]): Promise<Peer> {
  process.env.MEM0_TELEMETRY = 'false'
  const { Memory } = createRequire(join(dir, 'package.json'))('mem0ai/oss') as { Memory: new (config: unknown) => Mem0Memory }
  const version = (JSON.parse(readFileSync(join(dir, 'node_modules', 'mem0ai', 'package.json'), 'utf8')) as { version: string }).version
  const memory = new Memory({
    embedder: { provider: 'openai', config: { apiKey: 'loopback', baseURL: embedUrl, model: OFFLINE_EMBED_MODEL, embeddingDims: DIMENSIONS } },
    vectorStore: { provider: 'pgvector', config: { connectionString: database.url, collectionName: 'bench_mem0_memories', embeddingModelDims: DIMENSIONS, dimension: DIMENSIONS, hnsw: true } },
    // Never called: every add is infer: false and search asks no model.
    llm: { provider: 'openai', config: { apiKey: 'loopback', baseURL: embedUrl, model: 'none' } },
    disableHistory: true,
  })
  const started = Date.now()
  let next = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let index = next++; index < chunks.length; index = next++) {
      const chunk = chunks[index]!
      await memory.add(chunk.content, { userId: 'bench', infer: false, metadata: { sourceType: chunk.sourceType, sourceId: chunk.sourceId, title: chunk.title } })
    }
  }))
  log(`mem0ai ${version}: ${chunks.length} memories added in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return {
    name: `mem0ai ${version} Memory.search (pgvector, HNSW)`,
    search: async (query) => {
      const found = await memory.search(query, { filters: { user_id: 'bench' }, topK: K, threshold: 0 })
      return found.results.map(item => ({
        sourceType: String(item.metadata?.sourceType),
        sourceId: String(item.metadata?.sourceId),
        title: String(item.metadata?.title),
      }))
    },
    // Before the bench database is dropped: a client cut off by the drop crashes the process.
    close: async () => {
      await memory.vectorStore?.client?.end()
      await memory._entityStore?.client?.end()
    },
  }
}

/** The fallback: the exact pgvector top k on the same table, the query embedded over the same endpoint. */
function pgvectorTopK(database: Database, embedder: Embedder): Peer {
  return {
    name: 'pgvector top-k (exact, sequential scan)',
    search: async (query) => {
      const vector = `[${(await embedder.embed([query], 'query')).vectors[0]!.join(',')}]`
      const rows = await database.db.execute<{ source_type: string, source_id: string, title: string }>(sql`select source_type, source_id, title from mem_embeddings order by embedding <=> ${vector}::vector limit ${K}`)
      return [...rows].map(row => ({ sourceType: row.source_type, sourceId: row.source_id, title: row.title }))
    },
    close: async () => {},
  }
}

export async function recallPeerFigures(): Promise<BenchFigure[]> {
  const golden = parseGolden(readFileSync(new URL('../layers/memory/eval/golden.json', import.meta.url), 'utf8'), 'layers/memory/eval/golden.json')
  const { url, server } = await embeddingServer()
  const database = await nativeBenchDatabase('peers_recall', { max: 3 })
  try {
    const chunks = await seedCorpus(database)
    const embedder = httpEmbedder(url)
    let peer: Peer
    let reason: string | null = null
    const dir = process.env.MEM0_DIR
    if (!dir) {
      reason = 'MEM0_DIR is not set: mem0ai is not a dependency of the project; install it in a folder of its own and point MEM0_DIR there'
      peer = pgvectorTopK(database, embedder)
    }
    else {
      try {
        peer = await mem0Peer(dir, database, url, chunks)
      }
      catch (error) {
        reason = `mem0 could not run: ${(error as Error).message}`
        peer = pgvectorTopK(database, embedder)
      }
    }
    if (reason) log(`${reason}; the peer is a plain pgvector top-k query`)

    const ours = async (query: string) => (await recall({ db: database.db, embedder }, { query, k: K, mode: 'hybrid', readOnly: true })).hits
    const sides = [
      { name: 'ours: hybrid recall (HNSW + French full text, RRF)', search: ours, ms: [] as number[], recall: 0 },
      { name: peer.name, search: peer.search, ms: [] as number[], recall: 0 },
    ]
    // Recall@10 over the questions the corpus answers (an unanswerable one expects no source).
    const answerable = golden.queries.filter(item => item.expected.length > 0)
    for (const side of sides) {
      let sum = 0
      for (const item of answerable) sum += queryMetrics(item.expected, await side.search(item.query), K).recallAtK
      side.recall = sum / answerable.length
    }
    for (let index = 0; index < ROUNDS; index++) {
      for (const side of sides) {
        for (const item of golden.queries) {
          const start = process.hrtime.bigint()
          await side.search(item.query)
          side.ms.push(Number(process.hrtime.bigint() - start) / 1e6)
        }
      }
    }
    await peer.close()
    const load = loadavg().map(value => round(value))
    const [our, their] = sides as [typeof sides[number], typeof sides[number]]
    process.stderr.write(`\n${'side'.padEnd(56)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'recall@10'.padStart(11)}\n`)
    for (const side of sides) process.stderr.write(`${side.name.padEnd(56)}${percentile(side.ms, 50).toFixed(2).padStart(9)}${percentile(side.ms, 95).toFixed(2).padStart(9)}${side.recall.toFixed(3).padStart(11)}\n`)
    process.stderr.write(`(load average ${load.join(' / ')})\n\n`)

    const context = {
      peer: reason ? 'pgvector-topk' : 'mem0',
      ...(reason ? { reason } : {}),
      sides: Object.fromEntries(
        sides.map(side => [
          side.name,
          { p50Ms: round(percentile(side.ms, 50)), p95Ms: round(percentile(side.ms, 95)), recallAt10: round(side.recall, 3) },
        ]),
      ),
      corpus: `the golden set's seeded corpus, indexed and embedded by the real sync, among ${DISTRACTORS} synthetic notes: ${chunks.length} chunks`,
      queries: `${golden.queries.length} labelled queries of layers/memory/eval/golden.json, ${ROUNDS} interleaved rounds`,
      embedder: 'the offline embedder (hash, 1024 dims) served as an OpenAI-compatible endpoint on loopback, for both sides',
      database: 'native PostgreSQL 15 + pgvector',
      loadAverage: load,
    }
    return [
      { name: 'peers.recall_latency_ratio_mem0', value: round(percentile(our.ms, 50) / percentile(their.ms, 50)), unit: 'ratio', lowerIsBetter: true, context: { ...context, definition: 'recall p50, ours ÷ theirs', oursP95VsTheirs: round(percentile(our.ms, 95) / percentile(their.ms, 95)) } },
      { name: 'peers.recall_at_10_mem0', value: round(their.recall, 3), unit: 'ratio', lowerIsBetter: false, context: { ...context, definition: 'the peer\'s recall@10 on the labelled queries (share of each query\'s expected sources in its top 10, averaged)', ours: round(our.recall, 3) } },
      { name: 'peers.recall_at_10_ours', value: round(our.recall, 3), unit: 'ratio', lowerIsBetter: false, context: { ...context, definition: 'our hybrid recall@10 on the same queries, beside peers.recall_at_10_mem0' } },
    ]
  }
  finally {
    await database.close()
    server.close()
  }
}
