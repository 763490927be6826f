// The frozen baseline: the hybrid metrics the gate compares against. A metric more than
// `tol` below its baseline is a regression.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { METRIC_NAMES, type Metrics } from './metrics'

export const DEFAULT_TOLERANCE = 0.05

const MetricsShape = z.object({ recall_at_k: z.number().min(0).max(1), mrr_at_10: z.number().min(0).max(1), top1_accuracy: z.number().min(0).max(1) })

/** The embedder the baseline was frozen with: metrics from another model are not comparable. */
export const BaselineEmbedder = z.object({ provider: z.string().min(1), model: z.string().min(1), dimensions: z.number().int().min(1) })
export type BaselineEmbedder = z.infer<typeof BaselineEmbedder>

export const Baseline = z.object({
  /** 2 records the embedder; a version 1 baseline (without it) is still read. */
  version: z.union([z.literal(1), z.literal(2)]),
  embedder: BaselineEmbedder.optional(),
  mode: z.enum(['hybrid', 'sem', 'lex']),
  k: z.number().int().min(1).max(100),
  queries: z.number().int().min(1),
  golden_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  frozen_at: z.string(),
  metrics: MetricsShape,
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
  metric: keyof Metrics
  baseline: number
  current: number
  delta: number
}

export function compareToBaseline(current: Metrics, baseline: Metrics, tolerance = DEFAULT_TOLERANCE): Regression[] {
  if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > 1) throw new BaselineError(`the tolerance must be between 0 and 1 (got ${tolerance})`)
  return METRIC_NAMES
    .map(metric => ({ metric, baseline: baseline[metric], current: current[metric], delta: Math.round((current[metric] - baseline[metric]) * 10_000) / 10_000 }))
    .filter(item => item.current < item.baseline - tolerance - 1e-9)
}
