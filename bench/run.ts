// npm run bench [-- prefix]: runs every bench/*.bench.ts (or those whose name starts with
// the prefix) and writes bench/results.json, a JSON array of figures. Each file's figures are
// named after it (spawn.bench.ts → spawn.*): a run with a prefix replaces only its own
// figures in results.json and keeps the others.
// BENCH_SIZE=full (default) or tiny (bench/lib.ts: the same code on small inputs, a smoke
// run); BENCH_RESULTS names the file written instead of bench/results.json. A tiny run
// never writes bench/results.json unless BENCH_RESULTS names it: by default its figures go
// to synedre-bench-results-tiny.json in the temporary folder.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { join, resolve } from 'node:path'
import { cpus, hostname, tmpdir } from 'node:os'
import { benchSize, type BenchFigure, type BenchSize, type Benchmark } from './lib'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const prefix = process.argv[2] ?? ''
let size: BenchSize
try {
  size = benchSize()
}
catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(2)
}
const out = process.env.BENCH_RESULTS?.trim()
  ? resolve(process.env.BENCH_RESULTS.trim())
  : size === 'full' ? join(HERE, 'results.json') : join(tmpdir(), 'synedre-bench-results-tiny.json')
const files = readdirSync(HERE).filter(file => file.endsWith('.bench.ts') && file.startsWith(prefix)).sort()
if (files.length === 0) {
  process.stderr.write(`no benchmark file starts with "${prefix}" (have: ${readdirSync(HERE).filter(f => f.endsWith('.bench.ts')).join(', ')})\n`)
  process.exit(2)
}
const figures: BenchFigure[] = []
// A bench that throws is reported as one figure-less line (its error) and the others still
// run: one broken file must not cost every figure after it. The run then exits 1.
const failed: { file: string, error: string }[] = []
for (const file of files) {
  process.stderr.write(`[bench] ${file} (${size})…\n`)
  try {
    const benchmark = (await import(pathToFileURL(join(HERE, file)).href)).default as Benchmark
    for (const figure of await benchmark()) {
      figures.push({ ...figure, context: { ...figure.context, size, node: process.version, host: hostname(), cpus: cpus().length } })
      process.stderr.write(`[bench]   ${figure.name} = ${figure.value} ${figure.unit}\n`)
    }
  }
  catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
    failed.push({ file, error: message.split('\n')[0]! })
    process.stderr.write(`[bench]   FAILED ${file}: ${message}\n`)
  }
}
const areas = files.map(file => file.replace(/\.bench\.ts$/, ''))
const kept = prefix && existsSync(out)
  ? (JSON.parse(readFileSync(out, 'utf8')) as BenchFigure[]).filter(figure => !areas.some(area => figure.name.startsWith(`${area}.`)))
  : []
writeFileSync(out, `${JSON.stringify([...kept, ...figures], null, 2)}\n`)
process.stdout.write(`${JSON.stringify(figures)}\n`)
process.stderr.write(`[bench] ${figures.length} figure(s) written to ${out}${kept.length ? ` (${kept.length} from earlier runs kept)` : ''}\n`)
if (failed.length > 0) {
  process.stderr.write(`[bench] ${failed.length} of ${files.length} file(s) failed and wrote no figure: ${failed.map(f => `${f.file} (${f.error})`).join('; ')}\n`)
  process.exitCode = 1
}
