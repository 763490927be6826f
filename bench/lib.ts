// The benchmark contract: each bench/<area>.bench.ts exports a default function that
// measures and returns figures; bench/run.ts collects them into bench/results.json.
export interface BenchFigure {
  name: string
  value: number
  unit: string
  lowerIsBetter: boolean
  context: Record<string, unknown>
}

export type Benchmark = () => Promise<BenchFigure[]>

export const BENCH_SIZES = ['full', 'tiny'] as const
export type BenchSize = typeof BENCH_SIZES[number]

/**
 * BENCH_SIZE: `full` (the default: the sizes the figures are published at) or `tiny` (the
 * same code on small inputs, in seconds: a smoke run, its figures not comparable). bench/run.ts
 * records it in every figure's context.
 */
export function benchSize(env: NodeJS.ProcessEnv = process.env): BenchSize {
  const value = env.BENCH_SIZE?.trim() || 'full'
  if (!(BENCH_SIZES as readonly string[]).includes(value)) throw new Error(`BENCH_SIZE=${JSON.stringify(env.BENCH_SIZE)} is not a bench size: use ${BENCH_SIZES.join(' (the default) or ')}`)
  return value as BenchSize
}

/** `full` at BENCH_SIZE=full, `tiny` at BENCH_SIZE=tiny. */
export const sized = <T>(full: T, tiny: T): T => (benchSize() === 'tiny' ? tiny : full)

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]!
}

export const median = (samples: number[]) => percentile(samples, 50)

/** Runs `fn` `iterations` times after `warmup` runs; returns each duration in microseconds. */
export async function sample(fn: () => Promise<unknown>, iterations: number, warmup = Math.ceil(iterations / 10)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn()
  const durations: number[] = []
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint()
    await fn()
    durations.push(Number(process.hrtime.bigint() - start) / 1000)
  }
  return durations
}
