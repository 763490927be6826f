// recall-eval-seed — seeds the corpus the project's golden set is written for
// (layers/memory/core/eval/golden-corpus.ts) into an EMPTY database, writes its notes and reflex files
// under DATA_DIR/recall-eval/corpus, then indexes them as production does (note indexer,
// vector sync with the configured embedder). What `recall:eval` asks for when it finds
// "corpus not present". Exit 0 seeded, 2 the database already holds memory (refused).
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { defaultDataDir, openDatabase } from '#db/client'
import { createAiFacade } from '#layers/ai/core/facade'
import { indexNotes } from '#layers/memory/core/vault/indexer'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors } from '#layers/memory/core/vectors/sync'
import { seedEvalCorpus } from '#layers/memory/core/eval/golden-corpus'
import { runCli, UsageError } from './lib/cli'

runCli(async () => {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  const ai = createAiFacade({ env: process.env, db: database.db })
  try {
    const [held] = await database.db.execute<{ chunks: number, lessons: number }>(sql`select (select count(*) from mem_embeddings)::int as chunks, (select count(*) from learn_lessons)::int as lessons`)
    if (held!.chunks > 0 || held!.lessons > 0) {
      throw new UsageError(`this database already holds memory (${held!.chunks} chunk(s), ${held!.lessons} lesson(s)): the evaluation corpus is seeded only into an empty one, never mixed with real memory`, 'Point DATABASE_URL (or DATA_DIR) at an empty, migrated database and run again.')
    }
    const root = join(defaultDataDir(), 'recall-eval', 'corpus')
    const folders = { vaultDir: join(root, 'vault'), reflexDir: join(root, 'reflex') }
    await seedEvalCorpus(database.db, folders)
    const notes = await indexNotes({ db: database.db, vaultDir: folders.vaultDir })
    const vectors = await syncVectors({ db: database.db, embedder: facadeEmbedder(ai, { feature: 'memory_eval' }), reflexDir: folders.reflexDir })
    process.stdout.write(`corpus seeded: ${notes.indexed} note(s) from ${folders.vaultDir}, ${vectors.embedded} chunk(s) embedded by ${vectors.target ? `${vectors.target.provider}/${vectors.target.model}` : 'nothing'}; now run npm run recall:eval\n`)
    return 0
  }
  finally {
    await ai.flush()
    await database.close()
  }
})
