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
import { defaultDataDir, openDatabase, type Db } from '#db/client'
import { createAiFacade } from '#layers/ai/core/facade'
import { ArgsError, parseEvalArgs, type EvalArgs } from '#layers/memory/core/cli/args'
import { BaselineError, compareKinds, compareToBaseline, describeEmbedder, embedderMismatch, freezeKinds, readBaseline, writeBaseline, type Baseline, type BaselineEmbedder, type Regression } from '#layers/memory/core/eval/baseline'
import { corpusPresence, SEED_COMMAND, type CorpusPresence } from '#layers/memory/core/eval/corpus'
import { calibrate, floorRecords, type FloorShares } from '#layers/memory/core/eval/floor-calibration'
import { GoldenError, parseGolden, type GoldenSet } from '#layers/memory/core/eval/golden'
import { evaluate, type Evaluation } from '#layers/memory/core/eval/harness'
import type { KindReport, Metrics } from '#layers/memory/core/eval/metrics'
import { indexDimensions } from '#layers/memory/core/vectors/dimensions'
import { facadeEmbedder, type Embedder } from '#layers/memory/core/vectors/embedder'
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

type Out = (line: string) => void

/** The golden set and the frozen baseline the run reads. */
interface EvalInputs {
  golden: GoldenSet
  goldenPath: string
  goldenSha: string
  baselinePath: string
  baseline: Baseline | null
}

interface EvalRun extends EvalInputs {
  args: EvalArgs
  out: Out
  deps: { db: Db, embedder: Embedder }
  /** The embedder this run recalls with (none: no embedding provider). */
  embedder: BaselineEmbedder | null
}

function readArgs(argv: string[]): EvalArgs {
  try {
    return parseEvalArgs(argv)
  }
  catch (error) {
    if (error instanceof ArgsError) throw new UsageError(error.message, `usage: ${error.usage}`)
    throw error
  }
}

function readInputs(args: EvalArgs): EvalInputs {
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
  try {
    const golden = parseGolden(goldenText, goldenPath)
    const baseline = args.action === 'sweep' ? null : readBaseline(baselinePath)
    return { golden, goldenPath, goldenSha, baselinePath, baseline }
  }
  catch (error) {
    if (error instanceof GoldenError || error instanceof BaselineError) throw new UsageError(error.message, 'Fix the file, or point --golden / --baseline-file at another one.')
    throw error
  }
}

function reportMissingCorpus(args: EvalArgs, out: Out, goldenPath: string, presence: CorpusPresence): 2 {
  const message = `corpus not present: run \`${SEED_COMMAND}\` on an empty database (it seeds and indexes the corpus ${goldenPath} is written for), or point --golden at a golden set written for this vault — the index holds ${presence.present} of the ${presence.expected} sources it expects`
  if (args.json) out(JSON.stringify({ status: 'corpus_not_present', expected: presence.expected, present: presence.present, seed: SEED_COMMAND, message }))
  else out(message)
  return 2
}

async function currentEmbedder(deps: EvalRun['deps']): Promise<BaselineEmbedder | null> {
  const target = await deps.embedder.target()
  return target
    ? { provider: target.provider, model: target.model, dimensions: await indexDimensions(deps.db) }
    : null
}

/** --mode-sweep: lex, sem and hybrid side by side, kept in a JSON file. */
async function modeSweep(run: EvalRun): Promise<0> {
  const { args, out, deps, golden } = run
  const results = []
  for (const mode of ['lex', 'sem', 'hybrid'] as const) results.push(await evaluate(deps, golden, mode))
  const report = { status: 'sweep', k: golden.k, queries: golden.queries.length, golden_sha256: run.goldenSha, embedder: run.embedder, swept_at: new Date().toISOString(), modes: results.map(({ mode, metrics, kinds }) => ({ mode, metrics, kinds })) }
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

/** --calibrate-floor: the current semantic floor and the one suggested, checked on the held-back half. */
async function calibrateFloor(run: EvalRun): Promise<0> {
  const { args, out } = run
  const { model, floor, records } = await floorRecords(run.deps, run.golden)
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

/** --baseline: a new hybrid baseline frozen with the embedder it ran with. */
async function freezeBaseline(run: EvalRun): Promise<0> {
  const { args, out, golden, embedder, baselinePath } = run
  if (!embedder) throw new UsageError('no embedding provider is available: a hybrid baseline cannot be frozen', 'Configure an embedding provider (or AI_OFFLINE=1 for the offline one) and run again.')
  const result = await evaluate(run.deps, golden, 'hybrid')
  writeBaseline(baselinePath, { version: 3, embedder, mode: 'hybrid', k: result.k, queries: golden.queries.length, golden_sha256: run.goldenSha, frozen_at: new Date().toISOString(), metrics: result.metrics, kinds: freezeKinds(result.kinds, run.baseline) })
  if (args.json) out(JSON.stringify({ status: 'baseline_frozen', baseline: baselinePath, metrics: result.metrics, kinds: result.kinds }))
  else {
    out(`baseline frozen in ${baselinePath}: ${show(result.metrics)}`)
    result.kinds.forEach(report => out(showKind(report)))
  }
  return 0
}

/** The gate's verdict in words: current and baseline metrics, the notes, the regressions and their misses. */
function printGate(run: EvalRun, baseline: Baseline, result: Evaluation, regressions: Regression[]): void {
  const { args, out } = run
  out(`current  ${show(result.metrics)}`)
  result.kinds.forEach(report => out(`  ${showKind(report)}`))
  out(`baseline ${show(baseline.metrics)} (frozen ${baseline.frozen_at}${baseline.embedder ? ` with ${describeEmbedder(baseline.embedder)}` : ''}, tolerance ${args.tolerance})`)
  if (!baseline.embedder) out('note: this baseline does not say which embedder froze it (version 1): freeze it again with --baseline to record it')
  if (baseline.golden_sha256 !== run.goldenSha) out('note: the golden dataset changed since the baseline was frozen')
  for (const item of regressions)
    out(showRegression(item, item.kind ? (baseline.kinds?.[item.kind]?.tolerance ?? args.tolerance) : args.tolerance))
  if (regressions.length) misses(result).forEach(out)
  out(regressions.length ? 'gate: FAIL' : 'gate: pass')
}

/** The gate: hybrid metrics against the frozen baseline, with the baseline's embedder only. */
async function gate(run: EvalRun, baseline: Baseline): Promise<0 | 1 | 2> {
  const { args, out, embedder } = run
  const mismatch = embedderMismatch(baseline.embedder, embedder)
  if (mismatch) {
    const message = `embedder mismatch: ${mismatch}; metrics from another embedder are not comparable — run with the baseline's embedder, or freeze a new baseline with --baseline`
    if (args.json) out(JSON.stringify({ status: 'embedder_mismatch', baseline: baseline.embedder, current: embedder, message }))
    else out(message)
    return 2
  }
  const result = await evaluate(run.deps, run.golden, baseline.mode, baseline.k)
  const regressions = [
    ...compareToBaseline(result.metrics, baseline.metrics, args.tolerance),
    ...compareKinds(result.kinds, baseline.kinds ?? {}, args.tolerance),
  ]
  const status = regressions.length ? 'regression' : 'pass'
  if (args.json) {
    out(
      JSON.stringify({
        status,
        tolerance: args.tolerance,
        mode: result.mode,
        k: result.k,
        metrics: result.metrics,
        baseline: baseline.metrics,
        kinds: result.kinds,
        baselineKinds: baseline.kinds ?? null,
        regressions,
        goldenChanged: baseline.golden_sha256 !== run.goldenSha,
      }),
    )
  }
  else printGate(run, baseline, result, regressions)
  return regressions.length ? 1 : 0
}

runCli(async () => {
  const args = readArgs(process.argv.slice(2))
  const out = (line: string) => process.stdout.write(`${line}\n`)
  const inputs = readInputs(args)
  if (args.action === 'gate' && !inputs.baseline) {
    if (args.json) out(JSON.stringify({ status: 'no_baseline', baseline: inputs.baselinePath }))
    else out(`warning: no reference baseline at ${inputs.baselinePath}: nothing to gate against (freeze one with --baseline)`)
    return 2
  }

  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  const ai = createAiFacade({ env: process.env, db: database.db })
  const deps = { db: database.db, embedder: facadeEmbedder(ai, { feature: 'memory_eval' }) }
  try {
    const presence = await corpusPresence(database.db, inputs.golden)
    if (!presence.ok) return reportMissingCorpus(args, out, inputs.goldenPath, presence)
    const run: EvalRun = { ...inputs, args, out, deps, embedder: await currentEmbedder(deps) }
    if (args.action === 'sweep') return await modeSweep(run)
    if (args.action === 'calibrate') return await calibrateFloor(run)
    if (args.action === 'freeze') return await freezeBaseline(run)
    return await gate(run, inputs.baseline!)
  }
  finally {
    await ai.flush()
    await database.close()
  }
})
