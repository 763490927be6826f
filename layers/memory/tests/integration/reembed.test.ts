// A change of dimension (or of model): every chunk re-embedded into a new column, then
// swapped in with the HNSW index rebuilt; recall and the sync work at the new dimension.
// Through the CLI, on both databases.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { memEmbeddings } from '#db/schema/mem'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { upsertRouting } from '#layers/ai/core/routing-store'
import { recall } from '../../core/recall/engine'
import { indexNotes } from '../../core/vault/indexer'
import { syncVectors } from '../../core/vectors/sync'
import { indexDimensions } from '../../core/vectors/dimensions'
import { offlineEmbedder, OFFLINE_ENV } from '../fixtures/embedders'
import { seedEvalCorpus } from '../fixtures/eval-corpus'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'
import { PROCESS_TEST_TIMEOUT } from '../fixtures/processes'

describeOnBothDatabases('re-embedding the index at another dimension', (database, kind) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    const { db } = database()
    folders = memoryFolders()
    await seedEvalCorpus(db, folders)
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
  }, PROCESS_TEST_TIMEOUT)
  afterAll(() => folders.remove())

  it('re-embeds every chunk into a new column and swaps it in; recall and the sync then work at 256 dimensions', async () => {
    const { db, url } = database()
    const chunks = (await db.select({ id: memEmbeddings.id }).from(memEmbeddings)).length
    const nothing = await runTs('scripts/memory-reembed.ts', [], { env: { DATABASE_URL: url, ...OFFLINE_ENV } })
    expect(nothing.code, nothing.output).toBe(0)
    expect(nothing.output).toContain('nothing to do: the index already holds 1024 dimensions')

    await upsertRouting(db, 'default', { params: { dimensions: 256 } }, 'founder@example.test')
    const result = await runTs('scripts/memory-reembed.ts', ['--json'], { env: { DATABASE_URL: url, ...OFFLINE_ENV } })
    expect(result.code, result.output).toBe(0)
    expect(JSON.parse(result.output.trim().split('\n').pop()!)).toMatchObject({ from: { dimensions: 1024 }, to: { dimensions: 256, model: 'offline-hash-1024' }, reembedded: chunks, swapped: true })

    const [column] = await db.execute<{ dimensions: number, nulls: number, next: number }>(sql`select
      (select atttypmod from pg_attribute where attrelid = 'mem_embeddings'::regclass and attname = 'embedding') as dimensions,
      (select count(*) from mem_embeddings where embedding is null)::int as nulls,
      (select count(*) from pg_attribute where attrelid = 'mem_embeddings'::regclass and attname like '%\\_next' and not attisdropped)::int as next`)
    expect(column).toMatchObject({ dimensions: 256, nulls: 0, next: 0 })
    const [index] = await db.execute<{ definition: string }>(sql`select indexdef as definition from pg_indexes where indexname = 'mem_embeddings_embedding_hnsw_idx'`)
    // In the precision it had: half on PostgreSQL, full on PGlite (migration 0029).
    expect(index!.definition).toMatch(kind === 'native' ? /hnsw \(\(\(embedding\)::halfvec\(256\)\) halfvec_cosine_ops\) WITH \(m='16', ef_construction='128'\)/ : /hnsw \(embedding vector_cosine_ops\)$/)

    // This process (which read 1024 before) learns the new dimension from the first 256-dimension vector.
    expect(await indexDimensions(db)).toBe(1024)
    const response = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'boucle fetch IMAP bloquée', mode: 'sem', k: 3, readOnly: true })
    expect(response.hits[0]).toMatchObject({ title: 'IMAP fetch loop deadlock' })
    expect(await indexDimensions(db)).toBe(256)
    const sync = await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir }, { rebuild: true, sources: ['doctrine'] })
    expect(sync.embedded).toBeGreaterThan(0)
    // A vector of another dimension than the index's is still refused, naming the way out.
    await upsertRouting(db, 'default', { params: { dimensions: 512 } }, 'founder@example.test')
    await expect(syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir }, { rebuild: true, sources: ['doctrine'] })).rejects.toThrow(/the index holds 256 \(to change it: npm run memory:reembed\)/)
  }, PROCESS_TEST_TIMEOUT)
})
