// Worksites: the board of a project with 1,000 tasks (its query: the project, then every card
// with its job and chantier titles and owner, by column and position), p95 over 200 reads —
// on native PostgreSQL and on the embedded database side by side, each holding four other
// projects of 1,000 tasks as well (the board must find its own through the index, not scan).
// The query itself runs in about 2.5 ms on the server (EXPLAIN ANALYZE: a bitmap scan of
// work_tasks_board_idx, two hash joins, an in-memory sort); the rest is the client reading
// 1,000 rows. The machine's load average is kept with the figure: on a loaded 2-core host
// the p95 is mostly waiting for a CPU.
import { loadavg } from 'node:os'
import { sql } from 'drizzle-orm'
import type { Database } from '#db/connection'
import { workChantiers } from '#db/schema/work'
import { workJobs, workProjects, workTasks } from '#db/schema/worksites'
import { projectBoard } from '#layers/worksites/core/board'
import { WORK_ITEM_STATUSES } from '#layers/worksites/core/vocabulary'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { percentile, sample, sized, type BenchFigure } from './lib'

// BENCH_SIZE=tiny (bench/lib.ts): 2 projects of 50 tasks, 10 reads.
const PROJECTS = sized(5, 2)
const TASKS_PER_PROJECT = sized(1000, 50)
const CHANTIERS_PER_PROJECT = 4
const JOBS_PER_CHANTIER = 5
const READS = sized(200, 10)

const log = (line: string) => process.stderr.write(`[bench] worksites: ${line}\n`)

/** Five projects of 1,000 tasks spread over the columns; returns the first project's id. */
async function seed(database: Database): Promise<string> {
  const { db } = database
  const ids: string[] = []
  for (let p = 0; p < PROJECTS; p++) {
    const [project] = await db.insert(workProjects).values({ name: `Project ${p}`, missionBrief: 'Bench', createdBy: 'bench' }).returning({ id: workProjects.id })
    ids.push(project!.id)
    const chantiers = await db.insert(workChantiers).values(Array.from({ length: CHANTIERS_PER_PROJECT }, (_, c) => ({
      projectId: project!.id, title: `Chantier ${c}`, brief: '', status: 'active', createdBy: 'bench',
    }))).returning({ id: workChantiers.id })
    const jobs = await db.insert(workJobs).values(chantiers.flatMap((chantier, c) => Array.from({ length: JOBS_PER_CHANTIER }, (_, j) => ({
      projectId: project!.id, chantierId: chantier.id, title: `Job ${c}.${j}`, position: j, createdBy: 'bench',
    })))).returning({ id: workJobs.id, chantierId: workJobs.chantierId })
    const tasks = Array.from({ length: TASKS_PER_PROJECT }, (_, t) => {
      const job = jobs[t % jobs.length]!
      const status = WORK_ITEM_STATUSES[t % WORK_ITEM_STATUSES.length]!
      return { projectId: project!.id, chantierId: job.chantierId, jobId: job.id, title: `Task ${t} of project ${p}`, status, position: Math.floor(t / WORK_ITEM_STATUSES.length), createdBy: 'bench' }
    })
    for (let start = 0; start < tasks.length; start += 500) await db.insert(workTasks).values(tasks.slice(start, start + 500))
  }
  await db.execute(sql`analyze work_tasks`)
  return ids[0]!
}

async function measure(kind: 'native' | 'embedded'): Promise<BenchFigure> {
  const database = kind === 'native' ? await nativeBenchDatabase('worksites', { max: 2 }) : await embeddedBenchDatabase('worksites', { max: 2 })
  try {
    const projectId = await seed(database)
    let cards = 0
    const durations = await sample(async () => {
      const board = await projectBoard(database.db, projectId)
      cards = board.columns.reduce((n, column) => n + column.tasks.length, 0)
    }, READS)
    if (cards !== TASKS_PER_PROJECT) throw new Error(`the board showed ${cards} cards, not ${TASKS_PER_PROJECT}`)
    const p95 = percentile(durations, 95) / 1000
    log(`${kind}: p95 ${p95.toFixed(1)} ms, p50 ${(percentile(durations, 50) / 1000).toFixed(1)} ms over ${READS} reads`)
    return {
      name: kind === 'native' ? 'worksites.board_ms_1k' : 'worksites.board_ms_1k_embedded',
      value: Number(p95.toFixed(2)),
      unit: 'ms',
      lowerIsBetter: true,
      context: {
        database: kind,
        percentile: 95,
        reads: READS,
        tasks: TASKS_PER_PROJECT,
        otherProjects: PROJECTS - 1,
        goalMs: 50,
        p50Ms: Number((percentile(durations, 50) / 1000).toFixed(2)),
        loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
      },
    }
  }
  finally {
    await database.close()
  }
}

export default async function (): Promise<BenchFigure[]> {
  return [await measure('native'), await measure('embedded')]
}
