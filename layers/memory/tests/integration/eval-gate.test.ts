// The recall evaluation gate, as `npm test` runs it: the harness CLI as a process, over the
// seeded corpus, against the project's own golden set and frozen baseline.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { asc, inArray } from 'drizzle-orm'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { PROCESS_TEST_TIMEOUT, runMany } from '../fixtures/processes'
import { learnLessons } from '#db/schema/learn'
import { memEmbeddings, memNotes } from '#db/schema/mem'
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
      lessons: await db
        .select({
          id: learnLessons.id,
          recallCount: learnLessons.recallCount,
          lastRecalledAt: learnLessons.lastRecalledAt,
          updatedAt: learnLessons.updatedAt,
        })
        .from(learnLessons)
        .orderBy(asc(learnLessons.id)),
      embeddings: await db
        .select({ id: memEmbeddings.id, fingerprint: memEmbeddings.fingerprint, updatedAt: memEmbeddings.updatedAt })
        .from(memEmbeddings)
        .orderBy(asc(memEmbeddings.id)),
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
    // Every kind reported apart, the unanswerable one by the share answered "nothing relevant" (issue 37).
    expect(report.kinds.map((kind: { kind: string }) => kind.kind)).toEqual(['keyword', 'identifier', 'stem', 'accent', 'typo', 'multi-hop', 'unanswerable'])
    expect(report.kinds.find((kind: { kind: string }) => kind.kind === 'unanswerable').metrics.rejected).toBeGreaterThanOrEqual(0.8)
    expect(report.kinds.find((kind: { kind: string }) => kind.kind === 'stem').metrics.recall_at_k).toBeGreaterThanOrEqual(0.94)
    expect(report.kinds.find((kind: { kind: string }) => kind.kind === 'accent').metrics.recall_at_k).toBeGreaterThanOrEqual(0.94)
    expect(report.kinds.find((kind: { kind: string }) => kind.kind === 'multi-hop').metrics.recall_at_k).toBeGreaterThanOrEqual(0.85)
    expect(result.output).toMatch(/^ {2}kind unanswerable \(10\) rejected [\d.]+$/m)
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
      const batches = Array.from({ length: Math.ceil(golden.queries.length / 50) }, (_, index) =>
        Math.min(50, golden.queries.length - index * 50),
      )
      expect(batches.length).toBeGreaterThan(1)
      expect(embedder.batches).toEqual(mode === 'lex' ? [] : batches)
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

  it('exits 2 naming both embedders when the baseline was frozen with another one', async () => {
    const shipped = readBaseline(SHIPPED_BASELINE)!
    expect(shipped.embedder).toEqual({ provider: 'offline', model: 'offline-hash-1024', dimensions: 1024 })
    const file = join(folders.root, 'other-embedder.json')
    writeFileSync(file, JSON.stringify({ ...shipped, embedder: { provider: 'mistral', model: 'mistral-embed', dimensions: 1024 } }))
    const result = await gate(['--baseline-file', file])
    expect(result.code, result.output).toBe(2)
    expect(result.output).toContain('embedder mismatch: the baseline was frozen with mistral/mistral-embed (1024 dimensions), the gate would run with offline/offline-hash-1024 (1024 dimensions)')
    const json = await gate(['--baseline-file', file, '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.output.trim().split('\n').pop()!)).toMatchObject({ status: 'embedder_mismatch', baseline: { model: 'mistral-embed' }, current: { model: 'offline-hash-1024' } })
    // A version 1 baseline (no embedder recorded) still gates, and says so.
    const legacy = join(folders.root, 'legacy.json')
    const { embedder: _embedder, ...rest } = shipped
    writeFileSync(legacy, JSON.stringify({ ...rest, version: 1 }))
    const old = await gate(['--baseline-file', legacy])
    expect(old.code, old.output).toBe(0)
    expect(old.output).toContain('does not say which embedder froze it')
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
    expect(baseline).toMatchObject({ version: 3, embedder: { provider: 'offline', model: 'offline-hash-1024', dimensions: 1024 }, mode: 'hybrid', k: 5, queries: parseGolden(readFileSync(GOLDEN, 'utf8'), GOLDEN).queries.length })
    expect(baseline.metrics).toEqual(readBaseline(SHIPPED_BASELINE)!.metrics)
    expect(baseline.kinds).toEqual(readBaseline(SHIPPED_BASELINE)!.kinds)
    expect((await gate(['--baseline-file', file, '--tol', '0'])).code).toBe(0)

    const sweepFile = join(folders.root, 'sweeps', 'mode-sweep.json')
    const sweep = await gate(['--mode-sweep', '--json', '--sweep-file', sweepFile])
    expect(sweep.code, sweep.output).toBe(0)
    const report = JSON.parse(sweep.output.trim().split('\n').pop()!)
    expect(report.modes.map((mode: { mode: string }) => mode.mode)).toEqual(['lex', 'sem', 'hybrid'])
    expect(report.modes[2].metrics).toEqual(baseline.metrics)
    // The sweep is kept as a JSON artefact: the same figures, the embedder, every query's detail.
    const artefact = JSON.parse(readFileSync(sweepFile, 'utf8'))
    expect(artefact).toMatchObject({ status: 'sweep', embedder: baseline.embedder, modes: report.modes })
    expect(artefact.queriesDetail[2].queries).toHaveLength(baseline.queries)
  }, PROCESS_TEST_TIMEOUT)

  it('--calibrate-floor sets the semantic floor on every other query of each kind and checks it on the others (exit 0)', async () => {
    const result = await gate(['--calibrate-floor', '--json'])
    expect(result.code, result.output).toBe(0)
    const report = JSON.parse(result.output.trim().split('\n').pop()!)
    expect(report).toMatchObject({ status: 'calibrated', model: 'offline-hash-1024', current: { floor: 0.4 } })
    const { calibration, heldBack } = report.current
    expect(calibration.rejectedOf + heldBack.rejectedOf).toBe(10)
    // Issue 37: at least 8 of the 10 unanswerable questions answered "nothing relevant", on the held-back half too.
    expect(calibration.rejected + heldBack.rejected).toBeGreaterThanOrEqual(8)
    expect(heldBack.rejected / heldBack.rejectedOf).toBeGreaterThanOrEqual(0.8)
    const text = await gate(['--calibrate-floor'])
    expect(text.output).toMatch(/^current {3}semantic floor 0\.40: calibration kept \d+\/\d+ expected hits, rejected \d+\/5 unanswerable; held back kept \d+\/\d+ expected hits, rejected \d+\/5 unanswerable$/m)
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
    // One kind below its frozen figure fails the gate, whatever the overall figures say; its own tolerance, when the baseline sets one,
    // holds instead of --tol.
    const kinds = {
      ...shipped.kinds!,
      stem: {
        ...shipped.kinds!.stem!,
        metrics: { ...shipped.kinds!.stem!.metrics, mrr_at_10: Math.min(1, shipped.kinds!.stem!.metrics.mrr_at_10! + 0.1) },
      },
    }
    const kindFile = join(folders.root, 'kind.json')
    writeFileSync(kindFile, JSON.stringify({ ...shipped, kinds }))
    const kindGate = await gate(['--baseline-file', kindFile])
    expect(kindGate.code, kindGate.output).toBe(1)
    expect(kindGate.output).toMatch(/REGRESSION stem mrr_at_10: [\d.]+ < [\d.]+ − 0\.05/)
    expect(kindGate.output).not.toMatch(/REGRESSION (recall_at_k|mrr_at_10|top1_accuracy)/)
    writeFileSync(kindFile, JSON.stringify({ ...shipped, kinds: { ...kinds, stem: { ...kinds.stem, tolerance: 0.15 } } }))
    expect((await gate(['--baseline-file', kindFile])).code).toBe(0)
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

describeOnBothDatabases('recall evaluation gate on a database without its corpus', (database) => {
  let folders: MemoryFolders
  beforeAll(() => {
    folders = memoryFolders()
  })
  afterAll(() => folders.remove())
  const env = () => ({ DATABASE_URL: database().url, DATA_DIR: folders.root, ...OFFLINE_ENV })

  it('exits 2 with "corpus not present: run …", not 1; the seed command then makes it pass (0)', async () => {
    const absent = await runTs('scripts/recall-eval.ts', [], { env: env() })
    expect(absent.code, absent.output).toBe(2)
    expect(absent.output).toMatch(/^corpus not present: run `npm run recall:eval:seed` on an empty database .* the index holds 0 of the \d+ sources it expects$/m)
    expect(absent.output).not.toContain('REGRESSION')
    const json = await runTs('scripts/recall-eval.ts', ['--json'], { env: env() })
    expect(json.code).toBe(2)
    expect(JSON.parse(json.output.trim().split('\n').pop()!)).toMatchObject({ status: 'corpus_not_present', present: 0, seed: 'npm run recall:eval:seed' })

    const seeded = await runTs('scripts/recall-eval-seed.ts', [], { env: env() })
    expect(seeded.code, seeded.output).toBe(0)
    expect(seeded.output).toMatch(/corpus seeded: 18 note\(s\) .* embedded by offline\/offline-hash-1024/)
    const gate = await runTs('scripts/recall-eval.ts', [], { env: env() })
    expect(gate.code, gate.output).toBe(0)
    expect(gate.output).toContain('gate: pass')
    // Seeding again is refused: the corpus never mixes with memory already there.
    const again = await runTs('scripts/recall-eval-seed.ts', [], { env: env() })
    expect(again.code).toBe(2)
    expect(again.output).toMatch(/already holds memory/)
  }, PROCESS_TEST_TIMEOUT * 2)
})
