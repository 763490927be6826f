// Nightly consolidation: one dry-run of every feature (the automate's default) over 10,000
// lessons (scars embedded, 100 of them fresh from the last day, the rest spread over two
// years, half never recalled), 1,000 vault notes (a tenth with a wrong price, an obsolete
// pattern and a dense numeric table, against a divergence rules file), 200 projects (most of them
// inactive), the seeded agents, 30 spawn transcripts and 8 days of the AI
// ledger, on native PostgreSQL — median of 3 runs, in seconds. Goal: under 10 s.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { createAiFacade } from '#layers/ai/core/facade'
import { runConsolidation } from '#layers/learning/core/nightly/consolidation'
import { spawnOn } from '#layers/learning/tests/fixtures/spawns'
import { MEM_EMBEDDING_DIMENSIONS } from '#db/schema/mem'
import { seedAgents } from '#layers/agents/core/seed'
import { median, sized, type BenchFigure } from './lib'
import { nativeBenchDatabase } from './databases'

// BENCH_SIZE=tiny (bench/lib.ts): one run over 200 lessons (20 fresh), 50 notes, 20 projects, 3 spawns, 200 ledger rows.
const LESSONS = sized(10_000, 200)
const FRESH = sized(100, 20)
const NOTES = sized(1_000, 50)
const SPAWNS = sized(30, 3)
const PROJECTS = sized(200, 20)
const LEDGER_ROWS = sized(2000, 200)
const RUNS = sized(3, 1)
const ECHO_PERIOD = sized(1000, 100)

const log = (line: string) => process.stderr.write(`[bench] nightly: ${line}\n`)

export default async function (): Promise<BenchFigure[]> {
  const database = await nativeBenchDatabase('nightly', { max: 3 })
  const vaultDir = mkdtempSync(join(tmpdir(), 'synedre-bench-nightly-'))
  try {
    const { db } = database
    await db.execute(sql`insert into learn_lessons (kind, title, description, recall_count, last_recalled_at, created_at)
      select case when g % 10 = 0 then 'success' else 'failure' end, 'Scar ' || g || ': ' || md5(g::text), repeat('context ', 20),
        case when g % 2 = 0 then g % 7 else 0 end, case when g % 2 = 0 then now() - interval '3 days' end,
        case when g <= ${FRESH} then now() - interval '1 hour' else now() - (g % 730) * interval '1 day' - interval '2 days' end
      from generate_series(1, ${LESSONS}) g`)
    // Vectors computed in the database: the fresh scars echo older ones (g and g + ECHO_PERIOD share a direction).
    await db.execute(sql.raw(`insert into mem_embeddings (source_type, source_id, title, content, fingerprint, provider, model, embedding)
      select case when l.kind = 'success' then 'victory' else 'scar' end, l.id::text, l.title, l.title, md5(l.id::text) || md5(l.title), 'bench', 'planted',
        array(select sin(((l.id - 1) % ${ECHO_PERIOD} + 1) * d) + (l.id % 3) * 0.01 from generate_series(1, ${MEM_EMBEDDING_DIMENSIONS}) d)::vector(${MEM_EMBEDDING_DIMENSIONS})
      from learn_lessons l`))
    await db.execute(sql`insert into mem_notes (path, space, title, body, size, file_modified_at)
      select 'permanent/note-' || g || '.md', 'permanent', 'Note ' || g,
        repeat('body ', 100) || case when g % 10 = 0 then E'\nThe Starter plan: ' || (40 + g % 20) || E' € a month, deploy with fabric deploy.\n\n| a | b | c |\n|---|---|---|\n' || repeat(E'| 1 | 2,5 | 300 |\n', 12) else '' end,
        500, now() from generate_series(1, ${NOTES}) g`)
    mkdirSync(join(vaultDir, '.synedre'), { recursive: true })
    writeFileSync(join(vaultDir, '.synedre', 'divergence.json'), JSON.stringify({ canonical: [{ name: 'Starter plan', value: '49 €' }], obsolete: [{ pattern: 'fabric\\s+deploy' }] }))
    await db.execute(sql`insert into work_projects (name, created_by, created_at, updated_at)
      select 'Project ' || g, 'bench', now() - (g % 300) * interval '1 day', now() - (g % 300) * interval '1 day' from generate_series(1, ${PROJECTS}) g`)
    await seedAgents(db)
    await db.execute(sql`update agents set personality = personality || ' Drifted.' where id % 5 = 0`)
    for (let i = 0; i < SPAWNS; i++) await spawnOn(db, { events: Array.from({ length: 20 }, (_, e) => ({ type: 'assistant', text: `Step ${e} of session ${i}: delivered a part.` })) })
    await db.execute(sql`insert into ai_consumption (call_id, at, kind, provider, model, model_requested, feature, actor, outcome, cost_usd, duration_ms)
      select gen_random_uuid(), now() - (g % 8) * interval '1 day', 'completion', 'mistral', 'm', 'm', 'bench', 'agent-' || (g % 10), 'ok', 0.01 * (g % 13), 1
      from generate_series(1, ${LEDGER_ROWS}) g`)
    // The statistics autovacuum would have gathered by 04:00: without them the planner takes the tables for empty.
    await db.execute(sql`analyze`)
    log(`planted ${LESSONS} lessons (embedded), ${NOTES} notes, ${PROJECTS} projects, ${SPAWNS} spawns`)
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, log: () => {} })
    const seconds: number[] = []
    let last: Awaited<ReturnType<typeof runConsolidation>> | null = null
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now()
      last = await runConsolidation({ db, ai, vaultDir, now: new Date(), dryRun: true, log })
      seconds.push((performance.now() - started) / 1000)
    }
    await ai.flush()
    const counts = Object.fromEntries(last!.features.map(f => [f.feature, f.error ?? { ...f.counts, ms: f.ms }]))
    log(`dry-run ${seconds.map(s => s.toFixed(2)).join(', ')} s; ${JSON.stringify(counts)}`)
    return [{
      name: 'nightly.consolidation_dry_run_s_10k',
      value: Number(median(seconds).toFixed(2)),
      unit: 's',
      lowerIsBetter: true,
      context: { side: 'native', lessons: LESSONS, freshScars: FRESH, notes: NOTES, projects: PROJECTS, spawns: SPAWNS, runs: RUNS, goalS: 10, features: last!.features.map(f => f.feature), counts },
    }]
  }
  finally {
    rmSync(vaultDir, { recursive: true, force: true })
    await database.close()
  }
}
