// Learning: a suggestion run over 50 learnable lessons (the engine's own cost: selection, the
// personal-data scrubbing of each prompt and answer with the tenants' contact names, the
// facade's call to a loopback model answering at once, validation, insertion), on native
// PostgreSQL and on the embedded database. Goal: < 2 s. Each run starts from the same 50
// lessons with no suggestion; the median of RUNS runs is reported.
import { loadavg } from 'node:os'
import { sql } from 'drizzle-orm'
import type { Database } from '#db/connection'
import { clients } from '#db/schema/clients'
import { learnLessons } from '#db/schema/learn'
import { callDelayMs, runSuggestions } from '#layers/learning/core/suggest'
import { startScriptedModel } from '#layers/learning/tests/fakes/model'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { median, sized, type BenchFigure } from './lib'

// BENCH_SIZE=tiny (bench/lib.ts): 2 runs over 5 lessons, 40 contact names (two a tenant).
const LESSONS = sized(50, 5)
const RUNS = sized(5, 2)
const CONTACTS = sized(200, 40)
const log = (line: string) => process.stderr.write(`[bench] learning: ${line}\n`)

async function seed(database: Database): Promise<void> {
  const { db } = database
  await db.insert(clients).values(Array.from({ length: 20 }, (_, t) => ({
    slug: `tenant-${t}`, name: `Tenant ${t}`,
    contacts: Array.from({ length: CONTACTS / 20 }, (_, c) => ({ name: `Prénom${t}x${c} Nom${t}y${c}`, email: `p${t}.${c}@tenant${t}.example` })),
  })))
  await db.insert(learnLessons).values(Array.from({ length: LESSONS }, (_, i) => ({
    kind: i % 5 === 0 ? 'success' as const : 'failure' as const, learnable: true, importance: i % 11, recordedBy: 'bench',
    title: `Lesson ${i}: the deploy of tenant-${i % 20} broke`,
    description: `Prénom${i % 20}x1 Nom${i % 20}y1 (p${i % 20}.1@tenant${i % 20}.example, 06 12 34 56 ${String(i).padStart(2, '0')}) reported a 500 from 10.0.${i}.4 after release 4.2.${i}; `.repeat(4),
    checkAdded: 'The deploy runs the migrations first, then restarts.',
    tags: ['deploy', `tenant-${i % 20}`],
  })))
}

async function measure(kind: 'native' | 'embedded'): Promise<BenchFigure> {
  const database = kind === 'native' ? await nativeBenchDatabase('learning', { max: 2 }) : await embeddedBenchDatabase('learning', { max: 2 })
  const model = await startScriptedModel()
  model.byDefault(() => ({ destination: 'reflex', suggestion: 'Run the migrations before the restart (ask p1.1@tenant1.example).', diff_before: '', diff_after: 'Migrations before restart, always.' }))
  try {
    await seed(database)
    const ai = model.facade(database.db)
    const delayMs = callDelayMs(model.env)
    const durations: number[] = []
    for (let run = 0; run < RUNS; run++) {
      await database.db.execute(sql`delete from learn_suggestions`)
      const start = process.hrtime.bigint()
      const report = await runSuggestions({ db: database.db, ai }, { delayMs })
      durations.push(Number(process.hrtime.bigint() - start) / 1e9)
      if (report.inserted !== LESSONS) throw new Error(`run ${run}: ${report.inserted} suggestion(s) inserted, not ${LESSONS} (${report.failed} failed)`)
    }
    await ai.flush()
    const seconds = median(durations)
    log(`${kind}: median ${seconds.toFixed(3)} s over ${RUNS} runs of ${LESSONS} lessons`)
    return {
      name: kind === 'native' ? 'learning.suggestion_run_s_50' : 'learning.suggestion_run_s_50_embedded',
      value: Number(seconds.toFixed(3)),
      unit: 's',
      lowerIsBetter: true,
      context: { database: kind, lessons: LESSONS, runs: RUNS, contactNames: CONTACTS, model: 'loopback, zero latency', delayMs, goalS: 2, maxS: Number(Math.max(...durations).toFixed(3)), loadAverage1m: Number(loadavg()[0]!.toFixed(2)) },
    }
  }
  finally {
    await model.close()
    await database.close()
  }
}

export default async function (): Promise<BenchFigure[]> {
  return [await measure('native'), await measure('embedded')]
}
