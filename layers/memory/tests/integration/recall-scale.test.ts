// 10,000 chunks: the semantic arm runs on the HNSW index, and a selective filter still
// yields k rows thanks to pgvector 0.8's iterative index scans.
import { beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '../../../../tests/helpers/databases'
import { offlineEmbedding } from '../../../ai/core/offline/embed'
import { semanticQuery, semanticSettings } from '../../core/recall/arms'
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

  it('EXPLAIN shows the semantic arm on the HNSW index', async () => {
    const { db } = database()
    const filter = { types: null, agent: null, limit: 15 }
    const plan = await db.transaction(async (tx) => {
      for (const setting of semanticSettings(filter.limit)) await tx.execute(setting)
      return (await tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${semanticQuery(literal(query), MODEL, filter, index)}`)).map(row => row['QUERY PLAN']).join('\n')
    })
    expect(plan).toMatch(new RegExp(`Index Scan using ${HNSW_INDEX} on mem_embeddings`))
    expect(plan).toMatch(kind === 'native' ? /Order By: \(\(embedding\)::halfvec\(1024\) <=> / : /Order By: \(embedding <=> /)
    expect(plan).not.toMatch(/Seq Scan on mem_embeddings/)
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
    const arm = (iterative: boolean) => db.transaction(async (tx) => {
      for (const setting of semanticSettings(filter.limit)) await tx.execute(setting)
      if (!iterative) await tx.execute(sql`set local hnsw.iterative_scan = off`)
      const plan = (await tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${semanticQuery(literal(query), MODEL, filter, index)}`)).map(row => row['QUERY PLAN']).join('\n')
      return { plan, rows: await tx.execute(semanticQuery(literal(query), MODEL, filter, index)) }
    })
    const iterative = await arm(true)
    expect(iterative.plan).toContain(`Index Scan using ${HNSW_INDEX}`)
    expect(iterative.rows).toHaveLength(15)
    const plain = await arm(false)
    expect(plain.plan).toContain(`Index Scan using ${HNSW_INDEX}`)
    expect(plain.rows.length).toBeLessThan(5)
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
