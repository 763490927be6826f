// recall-eval [--baseline | --mode-sweep] [--tol 0.05] [--json] [--golden FILE] [--baseline-file FILE] [--sweep-file FILE]
// The recall evaluation harness over a golden dataset, strictly read-only.
//   (gate)        compares hybrid metrics to the frozen baseline, overall and per kind of query
//                 (each kind within its own tolerance when the baseline sets one): exit 0 pass, 1 regression
//   --baseline    freezes a new baseline (hybrid) with the embedder it ran with: exit 0
//   --mode-sweep  lex, sem and hybrid side by side, no gating, kept in a JSON file: exit 0
//   --calibrate-floor  the semantic floor set on every other query of each kind and checked
//                 on the others (held back): the current floor and the one suggested, exit 0
//   exit 2: the gate did not run — no baseline, the golden set's corpus not in the index
//   ("corpus not present: run …"), another embedder than the baseline's (both named), bad flags
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defaultDataDir, openDatabase } from '#db/client'
import { createAiFacade } from '#layers/ai/core/facade'
import { ArgsError, parseEvalArgs } from '#layers/memory/core/cli/args'
import { BaselineError, compareKinds, compareToBaseline, describeEmbedder, embedderMismatch, freezeKinds, readBaseline, writeBaseline, type BaselineEmbedder, type Regression } from '#layers/memory/core/eval/baseline'
import { corpusPresence, SEED_COMMAND } from '#layers/memory/core/eval/corpus'
import { calibrate, floorRecords, type FloorShares } from '#layers/memory/core/eval/floor-calibration'
import { GoldenError, parseGolden } from '#layers/memory/core/eval/golden'
import { evaluate, type Evaluation } from '#layers/memory/core/eval/harness'
import type { KindReport, Metrics } from '#layers/memory/core/eval/metrics'
import { indexDimensions } from '#layers/memory/core/vectors/dimensions'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { runCli, UsageError } from './lib/cli'

const DEFAULT_GOLDEN = fileURLToPath(new URL('../layers/memory/eval/golden.json', import.meta.url))
const DEFAULT_BASELINE = fileURLToPath(new URL('../layers/memory/eval/baseline.json', import.meta.url))

const show = (metrics: Metrics) => `recall@k ${metrics.recall_at_k.toFixed(4)} · mrr@10 ${metrics.mrr_at_10.toFixed(4)} · top1 ${metrics.top1_accuracy.toFixed(4)}`

const showKind = (report: KindReport) => `kind ${report.kind.padEnd(12)} (${String(report.queries).padStart(2)}) ${Object.entries(report.metrics).map(([name, value]) => `${name.replace('_at_', '@').replace('_accuracy', '')} ${value.toFixed(4)}`).join(' · ')}`
const showRegression = (item: Regression, tolerance: number) => `REGRESSION ${item.kind ? `${item.kind} ` : ''}${item.metric}: ${item.current.toFixed(4)} < ${item.baseline.toFixed(4)} − ${tolerance}`

const showShares = (shares: FloorShares) => `kept ${shares.kept}/${shares.keptOf} expected hits, rejected ${shares.rejected}/${shares.rejectedOf} unanswerable`

function misses(evaluation: Evaluation): string[] {
  return [
    ...evaluation.queries.filter(query => query.missing.length > 0).map(query => `  ${query.id} "${query.query}": missing ${query.missing.join(', ')}`),
    ...evaluation.queries.filter(query => query.kind === 'unanswerable' && !query.rejected).map(query => `  ${query.id} "${query.query}": answered with confidence, where nothing relevant was expected`),
  ]
}

runCli(async () => {
  let args
  try {
    args = parseEvalArgs(process.argv.slice(2))
  }
  catch (error) {
    if (error instanceof ArgsError) throw new UsageError(error.message, `usage: ${error.usage}`)
    throw error
  }
  const out = (line: string) => process.stdout.write(`${line}\n`)
  const goldenPath = args.golden ?? DEFAULT_GOLDEN
  let goldenText: string
  try {
    goldenText = readFileSync(goldenPath, 'utf8')
  }
  catch (error) {
    throw new UsageError(`cannot read the golden dataset ${goldenPath} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'Point --golden at a JSON file of { "k": 5, "queries": [{ "query": "…", "expected": ["type:id"] }] }.')
  }
  const goldenSha = createHash('sha256').update(goldenText).digest('hex')
  const baselinePath = args.baselineFile ?? DEFAULT_BASELINE
  let golden
  let baseline
  try {
    golden = parseGolden(goldenText, goldenPath)
    baseline = args.action === 'sweep' ? null : readBaseline(baselinePath)
  }
  catch (error) {
    if (error instanceof GoldenError || error instanceof BaselineError) throw new UsageError(error.message, 'Fix the file, or point --golden / --baseline-file at another one.')
    throw error
  }
  if (args.action === 'gate' && !baseline) {
    if (args.json) out(JSON.stringify({ status: 'no_baseline', baseline: baselinePath }))
    else out(`warning: no reference baseline at ${baselinePath}: nothing to gate against (freeze one with --baseline)`)
    return 2
  }

  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  const ai = createAiFacade({ env: process.env, db: database.db })
  const deps = { db: database.db, embedder: facadeEmbedder(ai, { feature: 'memory_eval' }) }
  try {
    const presence = await corpusPresence(database.db, golden)
    if (!presence.ok) {
      const message = `corpus not present: run \`${SEED_COMMAND}\` on an empty database (it seeds and indexes the corpus ${goldenPath} is written for), or point --golden at a golden set written for this vault — the index holds ${presence.present} of the ${presence.expected} sources it expects`
      if (args.json) out(JSON.stringify({ status: 'corpus_not_present', expected: presence.expected, present: presence.present, seed: SEED_COMMAND, message }))
      else out(message)
      return 2
    }
    const target = await deps.embedder.target()
    const embedder: BaselineEmbedder | null = target ? { provider: target.provider, model: target.model, dimensions: await indexDimensions(database.db) } : null
    if (args.action === 'sweep') {
      const results = []
      for (const mode of ['lex', 'sem', 'hybrid'] as const) results.push(await evaluate(deps, golden, mode))
      const report = { status: 'sweep', k: golden.k, queries: golden.queries.length, golden_sha256: goldenSha, embedder, swept_at: new Date().toISOString(), modes: results.map(({ mode, metrics, kinds }) => ({ mode, metrics, kinds })) }
      const sweepPath = args.sweepFile ?? join(defaultDataDir(), 'recall-eval', 'mode-sweep.json')
      mkdirSync(dirname(sweepPath), { recursive: true })
      writeFileSync(sweepPath, `${JSON.stringify({ ...report, queriesDetail: results.map(({ mode, queries }) => ({ mode, queries })) }, null, 2)}\n`)
      if (args.json) out(JSON.stringify({ ...report, file: sweepPath }))
      else {
        for (const result of results) {
          out(`${result.mode.padEnd(6)} ${show(result.metrics)}`)
          result.kinds.forEach(report => out(`       ${showKind(report)}`))
        }
        out(`kept in ${sweepPath}`)
      }
      return 0
    }
    if (args.action === 'calibrate') {
      const { model, floor, records } = await floorRecords(deps, golden)
      const result = calibrate(model, floor, records)
      if (args.json) out(JSON.stringify({ status: 'calibrated', ...result }))
      else {
        out(`model ${result.model ?? 'none'}; calibration half ${records.filter(record => !record.heldBack).length} queries, held-back half ${records.filter(record => record.heldBack).length}`)
        for (const [name, value] of [['current', result.current], ['suggested', result.suggested]] as const) {
          out(`${name.padEnd(9)} semantic floor ${value.floor.toFixed(2)}: calibration ${showShares(value.calibration)}; held back ${showShares(value.heldBack)}`)
        }
      }
      return 0
    }
    if (args.action === 'freeze') {
      if (!embedder) throw new UsageError('no embedding provider is available: a hybrid baseline cannot be frozen', 'Configure an embedding provider (or AI_OFFLINE=1 for the offline one) and run again.')
      const result = await evaluate(deps, golden, 'hybrid')
      writeBaseline(baselinePath, { version: 3, embedder, mode: 'hybrid', k: result.k, queries: golden.queries.length, golden_sha256: goldenSha, frozen_at: new Date().toISOString(), metrics: result.metrics, kinds: freezeKinds(result.kinds, baseline) })
      if (args.json) out(JSON.stringify({ status: 'baseline_frozen', baseline: baselinePath, metrics: result.metrics, kinds: result.kinds }))
      else {
        out(`baseline frozen in ${baselinePath}: ${show(result.metrics)}`)
        result.kinds.forEach(report => out(showKind(report)))
      }
      return 0
    }
    const mismatch = embedderMismatch(baseline!.embedder, embedder)
    if (mismatch) {
      const message = `embedder mismatch: ${mismatch}; metrics from another embedder are not comparable — run with the baseline's embedder, or freeze a new baseline with --baseline`
      if (args.json) out(JSON.stringify({ status: 'embedder_mismatch', baseline: baseline!.embedder, current: embedder, message }))
      else out(message)
      return 2
    }
    const result = await evaluate(deps, golden, baseline!.mode, baseline!.k)
    const regressions = [...compareToBaseline(result.metrics, baseline!.metrics, args.tolerance), ...compareKinds(result.kinds, baseline!.kinds ?? {}, args.tolerance)]
    const status = regressions.length ? 'regression' : 'pass'
    if (args.json) {
      out(JSON.stringify({ status, tolerance: args.tolerance, mode: result.mode, k: result.k, metrics: result.metrics, baseline: baseline!.metrics, kinds: result.kinds, baselineKinds: baseline!.kinds ?? null, regressions, goldenChanged: baseline!.golden_sha256 !== goldenSha }))
    }
    else {
      out(`current  ${show(result.metrics)}`)
      result.kinds.forEach(report => out(`  ${showKind(report)}`))
      out(`baseline ${show(baseline!.metrics)} (frozen ${baseline!.frozen_at}${baseline!.embedder ? ` with ${describeEmbedder(baseline!.embedder)}` : ''}, tolerance ${args.tolerance})`)
      if (!baseline!.embedder) out('note: this baseline does not say which embedder froze it (version 1): freeze it again with --baseline to record it')
      if (baseline!.golden_sha256 !== goldenSha) out('note: the golden dataset changed since the baseline was frozen')
      for (const item of regressions) out(showRegression(item, item.kind ? baseline!.kinds?.[item.kind]?.tolerance ?? args.tolerance : args.tolerance))
      if (regressions.length) misses(result).forEach(out)
      out(status === 'pass' ? 'gate: pass' : 'gate: FAIL')
    }
    return regressions.length ? 1 : 0
  }
  finally {
    await ai.flush()
    await database.close()
  }
})
