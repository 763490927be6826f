// 10,000 chunks: the semantic arm runs on the HNSW index, and a selective filter still
// yields k rows thanks to pgvector 0.8's iterative index scans — set by the arm's statement
// itself, which must reach the index scan and end with the statement.
import { beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { offlineEmbedding } from '#layers/ai/core/offline/embed'
import { efSearchFor, scanSettingsFor, semanticQuery } from '../../core/recall/arms'
import { recall } from '../../core/recall/engine'
import { offlineEmbedder } from '../fixtures/embedders'

const ROWS = 10_000
const RARE_AGENT = 'rare-agent'
const HNSW_INDEX = 'mem_embeddings_embedding_hnsw_idx'
const MODEL = 'offline-hash-1024'

function vocabulary(): { words: string[], text: (i: number) => string } {
  const words = Array.from({ length: 3000 }, (_, i) => `mot${i.toString(36)}`)
  let seed = 42
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  return { words, text: () => Array.from({ length: 12 }, () => words[Math.floor(random() ** 2 * words.length)]).join(' ') }
}

const literal = (text: string) => `[${offlineEmbedding(text, 1024).map(value => (value === 0 ? '0' : value.toPrecision(6))).join(',')}]`

describeOnBothDatabases('recall at 10,000 chunks', (database, kind) => {
  // Half precision on PostgreSQL, full on PGlite (migration 0029).
  const index = { dimensions: 1024, halfPrecision: kind === 'native' }
  const { words, text } = vocabulary()
  const query = `${words[1]} ${words[2]} ${words[3]}`

  beforeAll(async () => {
    const { db } = database()
    // Bulk load as pgvector recommends: without the index, then build it once — the very
    // definition the migration created.
    const [definition] = await db.execute<{ def: string }>(sql`select pg_get_indexdef(${HNSW_INDEX}::regclass) as def`)
    await db.execute(sql.raw(`drop index ${HNSW_INDEX}`))
    for (let start = 0; start < ROWS; start += 250) {
      const rows = []
      for (let i = start; i < Math.min(ROWS, start + 250); i++) {
        const type = i % 800 === 0 ? 'drill' : 'note'
        const agent = i % 500 === 7 ? RARE_AGENT : null
        const content = text(i)
        rows.push(sql`(${type}, ${`chunk-${i}`}, ${`Chunk ${i}`}, ${content}, ${'0'.repeat(64)}, 'offline', ${MODEL}, ${literal(content)}::vector, ${agent})`)
      }
      await db.execute(sql`insert into mem_embeddings (source_type, source_id, title, content, fingerprint, provider, model, embedding, agent) values ${sql.join(rows, sql`, `)}`)
    }
    await db.execute(sql.raw(definition!.def))
    await db.execute(sql`analyze mem_embeddings`)
    const [after] = await db.execute<{ def: string }>(sql`select pg_get_indexdef(${HNSW_INDEX}::regclass) as def`)
    expect(after!.def).toBe(definition!.def)
  }, 240_000)

  const explain = async (query: ReturnType<typeof semanticQuery>) =>
    (await database().db.execute<{ 'QUERY PLAN': string }>(sql`explain ${query}`)).map(row => row['QUERY PLAN']).join('\n')

  it('EXPLAIN shows the semantic arm on the HNSW index, its settings a one-time filter evaluated before it', async () => {
    const filter = { types: null, agent: null, limit: 15 }
    const plan = await explain(semanticQuery(literal(query), MODEL, filter, index))
    expect(plan).toMatch(new RegExp(`Index Scan using ${HNSW_INDEX} on mem_embeddings`))
    expect(plan).toMatch(kind === 'native' ? /Order By: \(\(embedding\)::halfvec\(1024\) <=> / : /Order By: \(embedding <=> /)
    expect(plan).not.toMatch(/Seq Scan on mem_embeddings/)
    expect(plan).toMatch(/One-Time Filter/)
  })

  it('a selective filter still returns k rows (iterative index scan), where a plain HNSW scan comes back short', async () => {
    const { db } = database()
    const embedder = offlineEmbedder(db)
    const response = await recall({ db, embedder }, { query, k: 5, mode: 'sem', agent: RARE_AGENT, readOnly: true })
    expect(response.hits).toHaveLength(5)
    expect(response.hits.every(hit => hit.agent === RARE_AGENT)).toBe(true)

    // The semantic arm of that recall (k × 3 = 15 candidates), on the HNSW index, with and
    // without iterative scans: without, the scan stops at ef_search candidates, nearly all
    // filtered out.
    const filter = { types: null, agent: RARE_AGENT, limit: 15 }
    const arm = async (iterativeScan: 'relaxed_order' | 'off') => {
      const statement = semanticQuery(literal(query), MODEL, filter, index, { iterativeScan, efSearch: efSearchFor(filter.limit) })
      return { plan: await explain(statement), rows: await db.execute(statement) }
    }
    const iterative = await arm('relaxed_order')
    expect(iterative.plan).toContain(`Index Scan using ${HNSW_INDEX}`)
    expect(iterative.rows).toHaveLength(15)
    const plain = await arm('off')
    expect(plain.plan).toContain(`Index Scan using ${HNSW_INDEX}`)
    expect(plain.rows.length).toBeLessThan(5)
  })

  it('the statement\'s ef_search caps the index scan, and the settings end with the statement', async () => {
    // Without iterative scans an HNSW scan stops after ef_search index entries (a few more
    // rows: chunks of equal vectors share an entry): the 150 asked for come back only when
    // the statement's own ef_search reached the scan.
    const { db, sql: client } = database()
    const filter = { types: null, agent: null, limit: 150 }
    const rows = async (efSearch: number) => (await db.execute(semanticQuery(literal(query), MODEL, filter, index, { iterativeScan: 'off', efSearch }))).length
    expect(await rows(150)).toBe(150)
    expect(await rows(40)).toBeLessThan(100)
    expect(scanSettingsFor(150)).toEqual({ iterativeScan: 'relaxed_order', efSearch: 150 })
    // On one connection: the arm, then the session's settings, still pgvector's defaults.
    const reserved = await client.reserve()
    try {
      const statement = new PgDialect().sqlToQuery(semanticQuery(literal(query), MODEL, filter, index))
      expect(await reserved.unsafe(statement.sql, statement.params as never[])).toHaveLength(150)
      const [after] = await reserved.unsafe<Array<{ ef: string, scan: string }>>(`select current_setting('hnsw.ef_search') as ef, current_setting('hnsw.iterative_scan') as scan`)
      expect(after).toEqual({ ef: '40', scan: 'off' })
    }
    finally {
      reserved.release()
    }
  })

  it('a selective scope (a source type holding 0.1 % of the chunks) returns k rows in every mode', async () => {
    const { db } = database()
    const embedder = offlineEmbedder(db)
    for (const mode of ['sem', 'hybrid'] as const) {
      const response = await recall({ db, embedder }, { query, k: 10, mode, scope: 'drill', readOnly: true })
      expect(response.hits, mode).toHaveLength(10)
      expect(response.hits.every(hit => hit.sourceType === 'drill')).toBe(true)
    }
  })
})
