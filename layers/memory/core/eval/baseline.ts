// The frozen baseline: the hybrid metrics the gate compares against, overall and per kind of
// query (golden.ts). A metric more than its tolerance below its baseline is a regression: the
// gate's `--tol` overall, and for a kind its own when the baseline sets one (a kind of ten
// queries moves by 0.1 when one query changes, so `--tol` alone would either never hold it
// or never let it move).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { METRIC_NAMES, type KindReport, type Metrics } from './metrics'

export const DEFAULT_TOLERANCE = 0.05

const MetricsShape = z.object({
  recall_at_k: z.number().min(0).max(1),
  mrr_at_10: z.number().min(0).max(1),
  top1_accuracy: z.number().min(0).max(1),
})

/** The embedder the baseline was frozen with: metrics from another model are not comparable. */
export const BaselineEmbedder = z.object({ provider: z.string().min(1), model: z.string().min(1), dimensions: z.number().int().min(1) })
export type BaselineEmbedder = z.infer<typeof BaselineEmbedder>

/** One kind's frozen figures (metrics.ts, KindReport) and, optionally, the tolerance it is held to. */
export const BaselineKind = z.object({
  queries: z.number().int().min(1),
  tolerance: z.number().min(0).max(1).optional(),
  metrics: z.record(z.string().min(1), z.number().min(0).max(1)),
}).strict()
export type BaselineKind = z.infer<typeof BaselineKind>

export const Baseline = z.object({
  /** 2 records the embedder, 3 each kind's figures; versions 1 and 2 are still read. */
  version: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  embedder: BaselineEmbedder.optional(),
  mode: z.enum(['hybrid', 'sem', 'lex']),
  k: z.number().int().min(1).max(100),
  queries: z.number().int().min(1),
  golden_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  frozen_at: z.string(),
  metrics: MetricsShape,
  kinds: z.record(z.string().min(1), BaselineKind).optional(),
})
export type Baseline = z.infer<typeof Baseline>

export class BaselineError extends Error {
  readonly code = 'bad_baseline'
  constructor(message: string) {
    super(message)
    this.name = 'BaselineError'
  }
}

/** The baseline, or null when the file does not exist. */
export function readBaseline(path: string): Baseline | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  }
  catch (error) {
    throw new BaselineError(`${path}: not valid JSON (${(error as Error).message})`)
  }
  const parsed = Baseline.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new BaselineError(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  return parsed.data
}

export function writeBaseline(path: string, baseline: Baseline): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(baseline, null, 2)}\n`)
}

export const describeEmbedder = (embedder: BaselineEmbedder) => `${embedder.provider}/${embedder.model} (${embedder.dimensions} dimensions)`

/** Why the baseline and the current embedder cannot be compared, or null when they can. */
export function embedderMismatch(frozen: BaselineEmbedder | undefined, current: BaselineEmbedder | null): string | null {
  if (!frozen) return null
  if (!current) return `the baseline was frozen with ${describeEmbedder(frozen)}, and no embedding provider is available now`
  if (frozen.provider === current.provider && frozen.model === current.model && frozen.dimensions === current.dimensions) return null
  return `the baseline was frozen with ${describeEmbedder(frozen)}, the gate would run with ${describeEmbedder(current)}`
}

export interface Regression {
  /** The kind of query it regressed on; absent for the overall figures. */
  kind?: string
  metric: string
  baseline: number
  current: number
  delta: number
}

export function compareToBaseline(current: Metrics, baseline: Metrics, tolerance = DEFAULT_TOLERANCE): Regression[] {
  if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > 1) throw new BaselineError(`the tolerance must be between 0 and 1 (got ${tolerance})`)
  return METRIC_NAMES.map(metric => ({
    metric,
    baseline: baseline[metric],
    current: current[metric],
    delta: Math.round((current[metric] - baseline[metric]) * 10_000) / 10_000,
  })).filter(item => item.current < item.baseline - tolerance - 1e-9)
}

/**
 * Each frozen kind's regressions: a metric more than the kind's tolerance (its own, else
 * `tolerance`) below its frozen value. A kind the golden set no longer has reads as 0.
 */
export function compareKinds(current: KindReport[], frozen: Record<string, BaselineKind>, tolerance = DEFAULT_TOLERANCE): Regression[] {
  const byKind = new Map(current.map(report => [report.kind, report.metrics]))
  return Object.entries(frozen).flatMap(([kind, baseline]) => {
    const allowed = baseline.tolerance ?? tolerance
    return Object.entries(baseline.metrics)
      .map(([metric, value]) => {
        const now = byKind.get(kind)?.[metric] ?? 0
        return { kind, metric, baseline: value, current: now, delta: Math.round((now - value) * 10_000) / 10_000, allowed }
      })
      .filter(item => item.current < item.baseline - item.allowed - 1e-9)
      .map(({ allowed: _allowed, ...item }) => item)
  })
}

/** The kinds to freeze: each one's figures, with the tolerance the previous baseline gave it. */
export function freezeKinds(current: KindReport[], previous: Baseline | null): Record<string, BaselineKind> {
  return Object.fromEntries(current.map((report) => {
    const tolerance = previous?.kinds?.[report.kind]?.tolerance
    return [report.kind, { queries: report.queries, ...(tolerance === undefined ? {} : { tolerance }), metrics: report.metrics }]
  }))
}
