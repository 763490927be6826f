// The benchmarks' smoke run: `npm run bench` (bench/run.ts) at BENCH_SIZE=tiny, every
// bench/*.bench.ts running its own code on small inputs, its figures written to a results file
// of this test's own (BENCH_RESULTS), never bench/results.json. A bench whose code broke
// fails here rather than at the next full run; the list of benches is read from the folder,
// so a new one is covered as soon as it exists.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, runTs } from '../helpers/processes'
import { TESTS_TMP } from '../helpers/database-config'

/** bench/lib.ts's BenchFigure, as far as this test reads it. */
interface Figure { name: string, value: unknown, context?: Record<string, unknown> }

const BENCH = join(ROOT, 'bench')
const AREAS = readdirSync(BENCH).filter(file => file.endsWith('.bench.ts')).map(file => file.replace(/\.bench\.ts$/, '')).sort()
const COMMITTED = join(BENCH, 'results.json')
const modified = () => statSync(COMMITTED, { throwIfNoEntry: false })?.mtimeMs ?? null

describe('npm run bench at BENCH_SIZE=tiny', () => {
  it('runs every bench file, each writing finite figures named after it, to its own results file', async () => {
    expect(AREAS.length).toBeGreaterThan(0)
    mkdirSync(TESTS_TMP, { recursive: true })
    const dir = mkdtempSync(join(TESTS_TMP, 'bench-smoke-'))
    const results = join(dir, 'results.json')
    const before = modified()
    try {
      const run = await runTs('bench/run.ts', [], { env: { BENCH_SIZE: 'tiny', BENCH_RESULTS: results } })
      const failures = run.output.split('\n').filter(line => /FAILED|failed and wrote no figure/.test(line)).join('\n')
      if (!existsSync(results)) throw new Error(`bench/run.ts exited ${run.code} (${run.signal ?? 'no signal'}) without writing ${results}:\n${run.output.slice(-4000)}`)
      const figures = JSON.parse(readFileSync(results, 'utf8')) as Figure[]
      // Soft: a broken bench shows its error and what the others still wrote, in one report.
      expect.soft(run.code, `bench/run.ts exited ${run.code}:\n${failures}`).toBe(0)
      const silent = AREAS.filter(area => !figures.some(figure => figure.name.startsWith(`${area}.`)))
      expect.soft(silent, `bench files that wrote no figure (the ${AREAS.length - silent.length} others wrote ${figures.length} figures)`).toEqual([])
      expect.soft(figures.filter(figure => typeof figure.value !== 'number' || !Number.isFinite(figure.value)).map(figure => `${figure.name} = ${String(figure.value)}`), 'figures without a finite value').toEqual([])
      expect.soft(figures.filter(figure => figure.context?.size !== 'tiny').map(figure => figure.name), 'figures not marked size: tiny').toEqual([])
      expect(modified(), 'bench/results.json was written').toBe(before)
    }
    finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 900_000)
})
