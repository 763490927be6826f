import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, eq, sql } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { PROCESS_TEST_TIMEOUT } from '../fixtures/processes'
import { memEmbeddings } from '#db/schema/mem'
import { learnDoctrines, learnLessons } from '#db/schema/learn'
import { indexNotes } from '../../core/vault/indexer'
import { CHUNK_MAX_CHARS, fingerprint } from '../../core/vectors/chunk'
import { reindexScar } from '../../core/vectors/reindex-scar'
import { syncVectors, VectorSyncError } from '../../core/vectors/sync'
import { recall } from '../../core/recall/engine'
import { asModel, counting, offlineEmbedder, OFFLINE_ENV, rateLimited } from '../fixtures/embedders'
import { CORPUS_AGENTS, CORPUS_DOCTRINES, CORPUS_DRILLS, CORPUS_ITERATIONS, CORPUS_LESSONS, CORPUS_NOTES, CORPUS_PROCEDURES, CORPUS_REFLEX, seedEvalCorpus } from '../fixtures/eval-corpus'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'

const byType = (report: { sources: Array<{ type: string }> }, type: string) => report.sources.find(source => source.type === type)

describeOnBothDatabases('vector sync', (database) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    folders = memoryFolders()
    await seedEvalCorpus(database().db, folders)
    await indexNotes({ db: database().db, vaultDir: folders.vaultDir })
  })
  afterAll(() => folders.remove())

  const deps = (embedder = counting(offlineEmbedder(database().db))) => ({ db: database().db, embedder, reflexDir: folders.reflexDir })

  it('embeds every source type, one chunk each, with its fingerprint and model', async () => {
    const { db } = database()
    const embedder = counting(offlineEmbedder(db))
    const report = await syncVectors(deps(embedder))
    const scars = CORPUS_LESSONS.filter(lesson => lesson.kind !== 'success').length
    expect(byType(report, 'scar')).toMatchObject({ documents: scars, embedded: scars, unchanged: 0 })
    expect(byType(report, 'victory')).toMatchObject({ embedded: CORPUS_LESSONS.length - scars })
    expect(byType(report, 'reflex')).toMatchObject({ embedded: Object.keys(CORPUS_REFLEX).length - 1 })
    expect(byType(report, 'note')).toMatchObject({ embedded: Object.keys(CORPUS_NOTES).length })
    expect(byType(report, 'doctrine')).toMatchObject({ embedded: CORPUS_DOCTRINES.length })
    expect(byType(report, 'agent')).toMatchObject({ embedded: CORPUS_AGENTS.length })
    expect(byType(report, 'drill')).toMatchObject({ embedded: CORPUS_DRILLS.length })
    expect(byType(report, 'procedure')).toMatchObject({ embedded: CORPUS_PROCEDURES.length })
    expect(byType(report, 'iteration')).toMatchObject({ embedded: CORPUS_ITERATIONS.length })
    expect(byType(report, 'project')).toMatchObject({ documents: 2, embedded: 2 }) // the done chantier is not an ongoing project
    expect(report.target).toEqual({ provider: 'offline', model: 'offline-hash-1024', dimensions: 1024 })
    expect(embedder.batches.every(size => size <= 50)).toBe(true)
    expect(report.embedCalls).toBe(embedder.calls)

    const rows = await db.select().from(memEmbeddings)
    expect(rows).toHaveLength(report.embedded)
    for (const row of rows) {
      expect(row.fingerprint).toBe(fingerprint(row.content))
      expect(row).toMatchObject({ provider: 'offline', model: 'offline-hash-1024' })
      expect(row.embedding).toHaveLength(1024)
    }
    expect(rows.find(row => row.sourceType === 'reflex' && row.sourceId === 'MEMORY.md')).toBeUndefined()
    expect(rows.find(row => row.sourceType === 'agent' && row.sourceId === 'securite')).toMatchObject({ title: 'Mitnick — Responsable sécurité', agent: 'securite' })
    const [tsv] = await db.execute<{ matches: boolean }>(sql`select tsv @@ to_tsquery('synedre_french', 'deploiement') as matches from mem_embeddings where source_type = 'scar' and title = 'Deploy without smoke test'`)
    expect(tsv!.matches).toBe(true)
  })

  it('a second run with nothing new makes zero embedding calls', async () => {
    const embedder = counting(offlineEmbedder(database().db))
    const report = await syncVectors(deps(embedder))
    expect(embedder.calls).toBe(0)
    expect(report).toMatchObject({ embedded: 0, removed: 0, embedCalls: 0 })
    expect(report.unchanged).toBe((await database().db.select().from(memEmbeddings)).length)
  })

  it('re-embeds only what changed, and removes what its source no longer holds', async () => {
    const { db } = database()
    const [doctrine] = await db.select().from(learnDoctrines).limit(1)
    await db.update(learnDoctrines).set({ body: `${doctrine!.body} Amended.` }).where(eq(learnDoctrines.id, doctrine!.id))
    const [timezone] = await db.select().from(learnLessons).where(eq(learnLessons.title, 'Timezone bug in the daily report'))
    await db.update(learnLessons).set({ archivedAt: new Date() }).where(eq(learnLessons.id, timezone!.id))
    const embedder = counting(offlineEmbedder(db))
    const report = await syncVectors(deps(embedder))
    expect(embedder.batches).toEqual([1])
    expect(byType(report, 'doctrine')).toMatchObject({ embedded: 1 })
    expect(byType(report, 'scar')).toMatchObject({ removed: 1, embedded: 0 })
    const gone = await db.select().from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'scar'), eq(memEmbeddings.sourceId, String(timezone!.id))))
    expect(gone).toEqual([])
  })

  it('a model change re-embeds, with no fingerprint change', async () => {
    const { db } = database()
    const total = (await db.select().from(memEmbeddings).where(eq(memEmbeddings.sourceType, 'doctrine'))).length
    const embedder = counting(asModel(offlineEmbedder(db), { provider: 'mistral', model: 'mistral-embed' }))
    const report = await syncVectors({ ...deps(), embedder }, { sources: ['doctrine'] })
    expect(byType(report, 'doctrine')).toMatchObject({ embedded: total, modelChanged: total, unchanged: 0 })
    expect(report.sources).toHaveLength(1)
    const models = await db.selectDistinct({ model: memEmbeddings.model }).from(memEmbeddings).where(eq(memEmbeddings.sourceType, 'doctrine'))
    expect(models).toEqual([{ model: 'mistral-embed' }])
    // back to the offline model for the next tests
    await syncVectors(deps(), { sources: ['doctrine'] })
  })

  it('batches 50 inputs per call, truncates long documents, and prints progress on long runs', async () => {
    const { db } = database()
    const long = 'mot '.repeat(CHUNK_MAX_CHARS)
    await db.insert(learnLessons).values(Array.from({ length: 119 }, (_, i) => ({ title: `Bulk scar ${i}`, description: `Description numéro ${i} du lot de cicatrices.` })))
    await db.insert(learnLessons).values({ title: 'Very long scar', description: long })
    const embedder = counting(offlineEmbedder(db))
    const lines: string[] = []
    const report = await syncVectors({ ...deps(embedder), log: line => lines.push(line) }, { sources: ['scar'], progressEvery: 50 })
    expect(embedder.batches).toEqual([50, 50, 20])
    expect(report.embedded).toBe(120)
    expect(lines.filter(line => line.startsWith('[vector-sync] progress:'))).toEqual([
      '[vector-sync] progress: 50/120 embedded (41%), now scar',
      '[vector-sync] progress: 100/120 embedded (83%), now scar',
    ])
    const [row] = await db.select().from(memEmbeddings).where(eq(memEmbeddings.title, 'Very long scar'))
    expect(row!.content).toHaveLength(CHUNK_MAX_CHARS)
    expect(row!.fingerprint).toBe(fingerprint(row!.content))
  })

  it('--dry-run embeds and writes nothing; --rebuild purges then re-embeds everything selected', async () => {
    const { db } = database()
    await db.insert(learnDoctrines).values({ title: 'Dry doctrine', body: 'Only counted.' })
    const before = await db.select({ id: memEmbeddings.id, updatedAt: memEmbeddings.updatedAt }).from(memEmbeddings)
    const dry = counting(offlineEmbedder(db))
    const report = await syncVectors(deps(dry), { dryRun: true })
    expect(dry.calls).toBe(0)
    expect(report).toMatchObject({ dryRun: true, embedded: 1 })
    expect(await db.select({ id: memEmbeddings.id, updatedAt: memEmbeddings.updatedAt }).from(memEmbeddings)).toEqual(before)

    const drills = (await db.select().from(memEmbeddings).where(eq(memEmbeddings.sourceType, 'drill'))).length
    const rebuild = counting(offlineEmbedder(db))
    const rebuilt = await syncVectors(deps(rebuild), { rebuild: true, sources: ['drill'] })
    expect(rebuilt).toMatchObject({ rebuild: true, purged: drills, embedded: drills })
    expect(rebuild.calls).toBe(1)
    const dryRebuild = await syncVectors(deps(), { rebuild: true, dryRun: true, sources: ['drill'] })
    expect(dryRebuild).toMatchObject({ purged: 0, embedded: drills })
    expect((await db.select().from(memEmbeddings).where(eq(memEmbeddings.sourceType, 'drill'))).length).toBe(drills)
  })

  it('an embedding failure stops the run with the work done kept', async () => {
    const { db } = database()
    await db.insert(learnDoctrines).values([{ title: 'Pending A', body: 'a' }, { title: 'Pending B', body: 'b' }])
    const failing = rateLimited(offlineEmbedder(db))
    const error = await syncVectors(deps(failing), { sources: ['doctrine'] }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(VectorSyncError)
    expect((error as Error).message).toMatch(/doctrine: embedding failed after 0 document\(s\): .*rate_limited/)
    const ok = await syncVectors(deps(), { sources: ['doctrine'] })
    expect(ok.embedded).toBe(3)
  })

  it('re-indexes one scar at once, recallable within the same run; unchanged, archived and failing cases', async () => {
    const { db } = database()
    const embedder = counting(offlineEmbedder(db))
    const [lesson] = await db.insert(learnLessons).values({ title: 'Quokka sandbox escape', description: 'Le bac à sable quokka laissait écrire hors du dossier de travail.', importance: 9 }).returning()
    expect(await reindexScar({ db, embedder }, lesson!.id)).toEqual({ status: 'indexed', sourceType: 'scar', sourceId: String(lesson!.id) })
    const found = await recall({ db, embedder }, { query: 'quokka sandbox', k: 1, readOnly: true })
    expect(found.hits[0]).toMatchObject({ sourceType: 'scar', sourceId: String(lesson!.id) })
    expect(await reindexScar({ db, embedder }, lesson!.id)).toMatchObject({ status: 'unchanged' })
    expect(embedder.calls).toBe(2) // the re-index and the recall query

    await db.update(learnLessons).set({ description: 'Changé.' }).where(eq(learnLessons.id, lesson!.id))
    const lines: string[] = []
    expect(await reindexScar({ db, embedder: rateLimited(embedder), log: line => lines.push(line) }, lesson!.id)).toMatchObject({ status: 'deferred', reason: expect.stringMatching(/rate_limited/) })
    expect(lines[0]).toMatch(/deferred to the next sync/)

    await db.update(learnLessons).set({ kind: 'success' }).where(eq(learnLessons.id, lesson!.id))
    expect(await reindexScar({ db, embedder }, lesson!.id)).toMatchObject({ status: 'indexed', sourceType: 'victory' })
    expect(await db.select().from(memEmbeddings).where(and(eq(memEmbeddings.sourceType, 'scar'), eq(memEmbeddings.sourceId, String(lesson!.id))))).toEqual([])

    await db.update(learnLessons).set({ archivedAt: new Date() }).where(eq(learnLessons.id, lesson!.id))
    expect(await reindexScar({ db, embedder }, lesson!.id)).toMatchObject({ status: 'removed' })
    expect(await reindexScar({ db, embedder }, 987654)).toMatchObject({ status: 'removed', reason: 'no such lesson' })
    expect(await db.select().from(memEmbeddings).where(eq(memEmbeddings.sourceId, String(lesson!.id)))).toEqual([])
  })

  it('reads the reflex memory files, not the index', async () => {
    const { db } = database()
    writeFileSync(join(folders.reflexDir, 'feedback-tests.md'), '# Feedback: tests\nToujours tester les deux bases.\n')
    const report = await syncVectors(deps(), { sources: ['reflex'] })
    expect(byType(report, 'reflex')).toMatchObject({ embedded: 1 })
    expect((await db.select().from(memEmbeddings).where(eq(memEmbeddings.sourceId, 'feedback-tests.md')))[0]).toMatchObject({ title: 'Feedback: tests' })
  })

  describe('as an automate process', () => {
    it('runs with --source and --json, refuses an unknown source type', async () => {
      const env = { DATABASE_URL: database().url, REFLEX_DIR: folders.reflexDir, ...OFFLINE_ENV }
      const result = await runTs('automates/run.ts', ['vector-sync', '--source', 'scar', '--source', 'victories', '--json'], { env })
      expect(result.code, result.output).toBe(0)
      const report = JSON.parse(result.output.split('\n').find(line => line.startsWith('{'))!)
      expect(report.sources.map((source: { type: string }) => source.type)).toEqual(['scar', 'victory'])
      expect(report.embedCalls).toBe(0)
      // The lessons' importance later run: offline, no model scores anything, nothing is invented.
      expect(report.importance).toEqual({ candidates: expect.any(Number), scored: 0 })
      const bad = await runTs('automates/run.ts', ['vector-sync', '--source', 'gossip'], { env })
      expect(bad.code).toBe(1)
      expect(bad.output).toContain('unknown scope "gossip"')
    }, PROCESS_TEST_TIMEOUT)
  })
})
