// Recall made fast (issue 17, deliver 7): the index in half precision with an exact re-rank,
// the lexical index without a pending list, a word too common to rank left out of the
// lexical match when the query holds rarer ones (the planner's statistics say which), one
// statement per arm, the lexicon probed by its key, and recalls taking turns on the database.
import { beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { offlineEmbedding } from '#layers/ai/core/offline/embed'
import { LEXICAL_MAX_WORD_ROWS, commonStems, lexicalArm, lexicalQuery, semanticArm, semanticQuery } from '../../core/recall/arms'
import { recall } from '../../core/recall/engine'
import { halfPrecisionIndex } from '../../core/vectors/dimensions'
import { offlineEmbedder } from '../fixtures/embedders'

const MODEL = 'offline-hash-1024'
const ROWS = LEXICAL_MAX_WORD_ROWS + 500
/** The database seen through a counter of its statements: how many ran, and how many at most at once. */
function counted(db: Db) {
  const seen = { statements: 0, inFlight: 0, most: 0 }
  const proxy = new Proxy(db, {
    get(target, property) {
      if (property !== 'execute') return Reflect.get(target, property, target)
      return async (...args: Parameters<Db['execute']>) => {
        seen.statements++
        seen.most = Math.max(seen.most, ++seen.inFlight)
        try {
          return await target.execute(...args)
        }
        finally {
          seen.inFlight--
        }
      }
    },
  })
  return { db: proxy, seen }
}

const literal = (text: string) => `[${offlineEmbedding(text, 1024).map(value => (value === 0 ? '0' : value.toPrecision(6))).join(',')}]`

describeOnBothDatabases('recall made fast', (database, kind) => {
  beforeAll(async () => {
    const { db } = database()
    // Every chunk says "quotidien"; one says "quotidien albatros", one "albatros" alone, one "quotidien zeppelin".
    const text = (i: number) => i === 1 ? 'quotidien albatros' : i === 2 ? 'albatros seul' : i === 3 ? 'quotidien zeppelin' : `quotidien note ${i}`
    for (let start = 0; start < ROWS; start += 250) {
      const rows = []
      for (let i = start; i < Math.min(ROWS, start + 250); i++) rows.push(sql`('note', ${`fast-${i}`}, ${`Fast ${i}`}, ${text(i)}, ${'0'.repeat(64)}, 'offline', ${MODEL}, ${literal(text(i))}::vector)`)
      await db.execute(sql`insert into mem_embeddings (source_type, source_id, title, content, fingerprint, provider, model, embedding) values ${sql.join(rows, sql`, `)}`)
    }
    await db.execute(sql`analyze mem_embeddings`)
  }, 120_000)

  it('indexes the vectors in half precision with a denser graph on PostgreSQL (full, default build on PGlite) and the text without a pending list', async () => {
    const { db } = database()
    const rows = await db.execute<{ name: string, def: string, options: string[] | null }>(sql`select c.relname as name, pg_get_indexdef(c.oid) as def, c.reloptions as options
      from pg_class c where c.relname in ('mem_embeddings_embedding_hnsw_idx', 'mem_embeddings_tsv_idx') order by 1`)
    expect(rows[0]!.def).toMatch(kind === 'native' ? /USING hnsw \(\(\(embedding\)::halfvec\(1024\)\) halfvec_cosine_ops\)/ : /USING hnsw \(embedding vector_cosine_ops\)/)
    // Built with ef_construction 128 on PostgreSQL (migration 0039), pgvector's defaults on PGlite.
    expect(rows[0]!.options).toEqual(kind === 'native' ? ['m=16', 'ef_construction=128'] : null)
    expect(await halfPrecisionIndex(db)).toBe(kind === 'native')
    expect(rows[1]!.options).toEqual(['fastupdate=false'])
  })

  it('leaves a word found in more than LEXICAL_MAX_WORD_ROWS chunks out of the match when a rarer word is there, and still counts it', async () => {
    const { db } = database()
    const filter = { types: null, agent: null, limit: 30 }
    const { candidates: hits } = await lexicalArm(db, ['quotidien', 'albatros'], filter)
    expect(hits.map(hit => hit.sourceId).sort()).toEqual(['fast-1', 'fast-2'])
    // The chunk holding both words ranks first, and the floor counts both stems.
    expect(hits[0]).toMatchObject({ sourceId: 'fast-1', words: { matched: 2, total: 2 } })
    expect(hits[1]).toMatchObject({ sourceId: 'fast-2', words: { matched: 1, total: 2 } })
  })

  it('matches the chunks holding every word when all of them are common, and a common word alone still matches', async () => {
    const { db } = database()
    const filter = { types: null, agent: null, limit: 30 }
    const { candidates: both } = await lexicalArm(db, ['quotidien', 'note'], filter)
    expect(both).toHaveLength(30)
    expect(both.every(hit => hit.words?.matched === 2)).toBe(true)
    const { candidates: alone } = await lexicalArm(db, ['quotidien'], filter)
    expect(alone).toHaveLength(30)
  })

  it('a hybrid recall still finds the chunk by its rare word', async () => {
    const { db } = database()
    const response = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'quotidien zeppelin', k: 5, mode: 'hybrid', readOnly: true })
    expect(response.hits[0]).toMatchObject({ sourceId: 'fast-3', lowConfidence: false })
  })

  it('a recall runs one statement per arm, and the typo search only when a word is unknown to the vault', async () => {
    const { db, seen } = counted(database().db)
    const deps = { db, embedder: offlineEmbedder(database().db) }
    await recall(deps, { query: 'quotidien albatros', k: 5, readOnly: true })
    seen.statements = 0
    const known = await recall(deps, { query: 'quotidien albatros', k: 5, readOnly: true })
    expect(known.hits[0]).toMatchObject({ sourceId: 'fast-1' })
    expect(seen.statements).toBe(2)
    seen.statements = 0
    // "albatrso": two letters swapped, a stem the vault lacks: the expansion, then its search.
    const typo = await recall(deps, { query: 'albatrso', k: 5, readOnly: true })
    expect(typo.expansions).toEqual([expect.objectContaining({ word: 'albatrso' })])
    expect(typo.hits.map(hit => hit.sourceId)).toEqual(expect.arrayContaining(['fast-1', 'fast-2']))
    expect(seen.statements).toBe(4)
  })

  it('the lexical statement asks the lexicon about each query word by its key, never reading it whole', async () => {
    const { db } = database()
    // A vault's lexicon grows with every new word. At 3,000 stems, `not exists` was planned as
    // a hash anti-join over the whole lexicon, on every recall (the bench's vault: 2,902).
    await db.execute(sql`insert into mem_lexicon (lexeme) select 'zzlex' || g from generate_series(1, 3000) as g on conflict do nothing`)
    await db.execute(sql`analyze mem_lexicon`)
    const filter = { types: null, agent: null, limit: 30 }
    const plan = [...await db.execute<Record<string, string>>(sql`explain ${lexicalQuery(['albatros', 'quotidien', 'zeppelni'], filter, await commonStems(db))}`)].map(row => Object.values(row)[0]).join('\n')
    expect(plan).toMatch(/Index Only Scan using mem_lexicon_pkey/)
    expect(plan).not.toMatch(/Seq Scan on mem_lexicon|Anti Join/)
    expect((await lexicalArm(db, ['albatros', 'zeppelin'], filter)).unknownStems).toBe(false)
    expect((await lexicalArm(db, ['albatros', 'zeppelni'], filter)).unknownStems).toBe(true)
  })

  it('recalls take turns: RECALL_CONCURRENCY of them at once, each running its two arms side by side', async () => {
    for (const limit of [1, 2]) {
      const { db, seen } = counted(database().db)
      const deps = { db, embedder: offlineEmbedder(database().db), env: { RECALL_CONCURRENCY: String(limit) } }
      await recall(deps, { query: 'quotidien zeppelin', k: 5, readOnly: true })
      seen.most = 0
      const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => recall(deps, { query: `quotidien zeppelin note ${i}`, k: 5, readOnly: true })))
      expect(responses.every(response => response.hits.length === 5)).toBe(true)
      expect(seen.most).toBe(2 * limit)
    }
  })

  it('the semantic arm orders by the exact full-precision similarity, not the index\'s half-precision one', async () => {
    const { db } = database()
    const query = offlineEmbedding('albatros quotidien', 1024)
    const hits = await semanticArm(db, literal('albatros quotidien'), MODEL, { types: null, agent: null, limit: 10 }, { dimensions: 1024, halfPrecision: kind === 'native' })
    expect(hits).toHaveLength(10)
    const texts = new Map([...await db.execute<{ source_id: string, content: string }>(sql`select source_id, content from mem_embeddings where source_id like 'fast-%'`)].map(row => [row.source_id, row.content]))
    for (const hit of hits) {
      const vector = offlineEmbedding(texts.get(hit.sourceId)!, 1024)
      const cosine = vector.reduce((sum, value, index) => sum + value * query[index]!, 0)
      // float4 storage and the 6-digit literal: 1e-5; half precision would be off by ~1e-3.
      expect(hit.score).toBeCloseTo(cosine, 4)
    }
    expect(hits.map(hit => hit.score)).toEqual([...hits.map(hit => hit.score)].sort((a, b) => b - a))
  })

  it('an explicit set of source ids (the skill router) is ranked by the exact distance over just those rows, without walking the HNSW index', async () => {
    const { db } = database()
    const ids = Array.from({ length: 600 }, (_, i) => `fast-${i * 3}`)
    const filter = { types: ['note' as const], agent: null, sourceIds: ids, limit: 10 }
    const index = { dimensions: 1024, halfPrecision: kind === 'native' }
    const plan = [...await db.execute<Record<string, string>>(sql`explain ${semanticQuery(literal('albatros quotidien'), MODEL, filter, index)}`)].map(row => Object.values(row)[0]).join('\n')
    expect(plan).not.toMatch(/hnsw/i)
    const hits = await semanticArm(db, literal('albatros quotidien'), MODEL, filter, index)
    const query = offlineEmbedding('albatros quotidien', 1024)
    const texts = [...await db.execute<{ source_id: string, content: string }>(sql`select source_id, content from mem_embeddings where source_id like 'fast-%'`)]
    const exact = texts.filter(row => ids.includes(row.source_id))
      .map(row => offlineEmbedding(row.content, 1024).reduce((sum, value, i) => sum + value * query[i]!, 0))
      .sort((a, b) => b - a).slice(0, 10)
    expect(hits.every(hit => ids.includes(hit.sourceId))).toBe(true)
    expect(hits).toHaveLength(10)
    hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(exact[i]!, 4))
  })
})
