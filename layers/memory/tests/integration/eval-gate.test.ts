// The recall evaluation gate, as `npm test` runs it: the harness CLI as a process, over the
// seeded corpus, against the project's own golden set and frozen baseline.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { asc, inArray } from 'drizzle-orm'
import { describeOnBothDatabases } from '../../../../tests/helpers/databases'
import { runTs } from '../../../../tests/helpers/processes'
import { PROCESS_TEST_TIMEOUT, runMany } from '../fixtures/processes'
import { learnLessons } from '../../../../db/schema/learn'
import { memEmbeddings, memNotes } from '../../../../db/schema/mem'
import { readBaseline } from '../../core/eval/baseline'
import { parseGolden } from '../../core/eval/golden'
import { evaluate } from '../../core/eval/harness'
import { indexNotes } from '../../core/vault/indexer'
import { syncVectors } from '../../core/vectors/sync'
import { counting, offlineEmbedder, OFFLINE_ENV } from '../fixtures/embedders'
import { seedEvalCorpus } from '../fixtures/eval-corpus'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'

const GOLDEN = 'layers/memory/eval/golden.json'
const SHIPPED_BASELINE = 'layers/memory/eval/baseline.json'

describeOnBothDatabases('recall evaluation gate', (database) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    const { db } = database()
    folders = memoryFolders()
    await seedEvalCorpus(db, folders)
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
  }, PROCESS_TEST_TIMEOUT)
  afterAll(() => folders.remove())

  const env = () => ({ DATABASE_URL: database().url, ...OFFLINE_ENV })
  const gate = (args: string[] = []) => runTs('scripts/recall-eval.ts', args, { env: env() })
  const state = async () => {
    const { db } = database()
    return {
      lessons: await db.select({ id: learnLessons.id, recallCount: learnLessons.recallCount, lastRecalledAt: learnLessons.lastRecalledAt, updatedAt: learnLessons.updatedAt }).from(learnLessons).orderBy(asc(learnLessons.id)),
      embeddings: await db.select({ id: memEmbeddings.id, fingerprint: memEmbeddings.fingerprint, updatedAt: memEmbeddings.updatedAt }).from(memEmbeddings).orderBy(asc(memEmbeddings.id)),
      notes: await db.select({ path: memNotes.path, indexedAt: memNotes.indexedAt }).from(memNotes).orderBy(asc(memNotes.path)),
    }
  }

  it('passes against the shipped baseline (exit 0), strictly read-only', async () => {
    const before = await state()
    const result = await gate()
    expect(result.code, result.output).toBe(0)
    expect(result.output).toContain('gate: pass')
    expect(result.output).toMatch(/^current {2}recall@k [\d.]+ · mrr@10 [\d.]+ · top1 [\d.]+$/m)
    const json = await gate(['--json'])
    expect(json.code, json.output).toBe(0)
    const report = JSON.parse(json.output.trim().split('\n').pop()!)
    expect(report).toMatchObject({ status: 'pass', tolerance: 0.05, mode: 'hybrid', k: 5, regressions: [], goldenChanged: false })
    expect(await state()).toEqual(before)
  }, PROCESS_TEST_TIMEOUT)

  it('the harness itself never moves a recall counter (core, every mode)', async () => {
    const { db } = database()
    const before = await state()
    const golden = parseGolden(readFileSync(GOLDEN, 'utf8'), GOLDEN)
    for (const mode of ['hybrid', 'sem', 'lex'] as const) {
      const embedder = counting(offlineEmbedder(db))
      const evaluation = await evaluate({ db, embedder }, golden, mode)
      expect(evaluation.queries).toHaveLength(golden.queries.length)
      expect(evaluation.queries.some(query => query.found.some(item => item.startsWith('scar:')))).toBe(true)
      // The query embeddings go in batches of 50 (the facade throttles between requests); lex calls nothing.
      expect(embedder.batches).toEqual(mode === 'lex' ? [] : [golden.queries.length])
    }
    expect(await state()).toEqual(before)
  }, PROCESS_TEST_TIMEOUT)

  it('fails (exit 1) when recall is degraded on purpose, naming the regressions', async () => {
    const { db } = database()
    // Lose the lessons and the procedures from the index: the queries about them miss.
    await db.delete(memEmbeddings).where(inArray(memEmbeddings.sourceType, ['scar', 'victory', 'procedure']))
    try {
      const result = await gate()
      expect(result.code, result.output).toBe(1)
      expect(result.output).toMatch(/REGRESSION recall_at_k: [\d.]+ < [\d.]+ − 0\.05/)
      expect(result.output).toContain('gate: FAIL')
      expect(result.output).toMatch(/deploy-smoke "smoke test avant le déploiement": missing scar:Deploy without smoke test/)
    }
    finally {
      await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
    }
    expect((await gate()).code).toBe(0)
  }, PROCESS_TEST_TIMEOUT)

  it('exits 2 without a baseline', async () => {
    const missing = join(folders.root, 'no-baseline.json')
    const result = await gate(['--baseline-file', missing])
    expect(result.code).toBe(2)
    expect(result.output).toContain(`warning: no reference baseline at ${missing}`)
    const json = await gate(['--baseline-file', missing, '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.output.trim())).toEqual({ status: 'no_baseline', baseline: missing })
  }, PROCESS_TEST_TIMEOUT)

  it('--baseline freezes the hybrid metrics (exit 0) and the gate then holds; --mode-sweep compares the three modes (exit 0)', async () => {
    const file = join(folders.root, 'frozen.json')
    const frozen = await gate(['--baseline', '--baseline-file', file])
    expect(frozen.code, frozen.output).toBe(0)
    const baseline = readBaseline(file)!
    expect(baseline).toMatchObject({ version: 1, mode: 'hybrid', k: 5, queries: parseGolden(readFileSync(GOLDEN, 'utf8'), GOLDEN).queries.length })
    expect(baseline.metrics).toEqual(readBaseline(SHIPPED_BASELINE)!.metrics)
    expect((await gate(['--baseline-file', file, '--tol', '0'])).code).toBe(0)

    const sweep = await gate(['--mode-sweep', '--json'])
    expect(sweep.code, sweep.output).toBe(0)
    const report = JSON.parse(sweep.output.trim().split('\n').pop()!)
    expect(report.modes.map((mode: { mode: string }) => mode.mode)).toEqual(['lex', 'sem', 'hybrid'])
    expect(report.modes[2].metrics).toEqual(baseline.metrics)
  }, PROCESS_TEST_TIMEOUT)

  it('--tol sets how much regression is tolerated', async () => {
    const shipped = readBaseline(SHIPPED_BASELINE)!
    const file = join(folders.root, 'inflated.json')
    const raised = Object.fromEntries(Object.entries(shipped.metrics).map(([name, value]) => [name, Math.min(1, value + 0.03)]))
    writeFileSync(file, JSON.stringify({ ...shipped, metrics: raised }))
    expect((await gate(['--baseline-file', file])).code).toBe(0)
    const strict = await gate(['--baseline-file', file, '--tol', '0.01'])
    expect(strict.code).toBe(1)
    expect(strict.output).toContain('tolerance 0.01')
  }, PROCESS_TEST_TIMEOUT)

  it('bad flags and bad files exit 2 with the reason', async () => {
    const broken = join(folders.root, 'broken.json')
    writeFileSync(broken, '{ "queries": [ { "query": "x" } ] }')
    const cases: Array<[string[], RegExp]> = [
      [['--tol', 'abc'], /--tol must be a number from 0 to 1 \(got "abc"\)/],
      [['--tol', '2'], /--tol must be a number from 0 to 1/],
      [['--baseline', '--mode-sweep'], /cannot be combined/],
      [['--verbose'], /Unknown option '--verbose'/],
      [['--golden', join(folders.root, 'nope.json')], /cannot read the golden dataset/],
      [['--golden', broken], /broken\.json: queries\.0\.expected: /],
      [['--baseline-file', broken], /broken\.json: version: /],
    ]
    const results = await runMany('scripts/recall-eval.ts', cases.map(([args]) => args), env())
    cases.forEach(([args, message], index) => {
      expect(results[index]!.code, `${args.join(' ')}: ${results[index]!.output}`).toBe(2)
      expect(results[index]!.output).toMatch(message)
    })
  }, PROCESS_TEST_TIMEOUT)
})
