// The execution log: one ops_cron_runs row per automate execution or skip.
import { and, asc, count, desc, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { opsCronRuns, type CronRunStatus, type OpsCronRun } from '#db/schema/index'
import type { Paged, SortDir } from '#shared/paging'

export interface RunIdentity {
  automation: string
  args: string[]
  host: string
  pid: number
}

export async function openRun(db: Db, identity: RunIdentity): Promise<number> {
  const [row] = await db.insert(opsCronRuns).values({ ...identity, status: 'running' }).returning({ id: opsCronRuns.id })
  return row!.id
}

export interface RunOutcome {
  status: Exclude<CronRunStatus, 'running'>
  exitCode: number
  reason?: string
  outputTail?: string
}

export async function closeRun(db: Db, id: number, outcome: RunOutcome): Promise<void> {
  await db.update(opsCronRuns).set({
    status: outcome.status,
    exitCode: outcome.exitCode,
    reason: outcome.reason ?? null,
    outputTail: outcome.outputTail ?? null,
    endedAt: sql`now()`,
    durationMs: sql`(extract(epoch from (now() - ${opsCronRuns.startedAt})) * 1000)::int`,
  }).where(eq(opsCronRuns.id, id))
}

/** The output so far of a run still going: its log shows live progress, not only the end. */
export async function writeProgress(db: Db, id: number, outputTail: string): Promise<void> {
  await db.update(opsCronRuns).set({ outputTail }).where(and(eq(opsCronRuns.id, id), eq(opsCronRuns.status, 'running')))
}

/** A run that never started: the breaker was off or another instance held the lease. */
export async function recordSkip(db: Db, identity: RunIdentity, reason: string): Promise<void> {
  await db.insert(opsCronRuns).values({
    ...identity, status: 'skipped', reason, exitCode: 0, endedAt: sql`now()`, durationMs: 0,
  })
}

export async function recentRuns(db: Db, automation: string, limit = 20): Promise<OpsCronRun[]> {
  return await db.select().from(opsCronRuns).where(eq(opsCronRuns.automation, automation))
    .orderBy(desc(opsCronRuns.startedAt), desc(opsCronRuns.id)).limit(limit)
}

/** The columns a run log sorts by (newest first by default). */
/** A run as the hub's routes send it (dates as strings). */
export interface RunRow {
  id: number
  automation?: string
  status: string
  reason: string | null
  args: string[]
  host: string
  pid: number
  startedAt: string
  endedAt: string | null
  exitCode: number | null
  durationMs: number | null
  outputTail: string | null
}

export const RUN_SORTS = ['startedAt', 'status', 'durationMs', 'exitCode'] as const
export type RunSort = typeof RUN_SORTS[number]
const RUN_SORT_COLUMN = {
  startedAt: opsCronRuns.startedAt,
  status: opsCronRuns.status,
  durationMs: opsCronRuns.durationMs,
  exitCode: opsCronRuns.exitCode,
}

export interface RunFilter {
  automation?: string
  status?: CronRunStatus
}

/** One numbered page of an automate's run log; newest first breaks ties, so pages never overlap. */
export async function runLogPage(db: Db, automation: string, paging: RunPaging): Promise<Paged<OpsCronRun>> {
  return await runsPage(db, { automation }, paging)
}

type RunPaging = { page: number, pageSize: number, sort?: RunSort, dir?: SortDir }

/** One numbered page of the whole execution log, filtered by automate and outcome. */
export async function runsPage(db: Db, filter: RunFilter, paging: RunPaging): Promise<Paged<OpsCronRun>> {
  const pageSize = Math.min(Math.max(paging.pageSize, 1), 200)
  const page = Math.max(paging.page, 1)
  const order = paging.dir === 'asc' ? asc : desc
  const chosen = paging.sort && paging.sort !== 'startedAt' ? [sql`${order(RUN_SORT_COLUMN[paging.sort])} nulls last`] : []
  const newest = paging.sort === 'startedAt' ? order : desc
  const conditions = [
    filter.automation ? eq(opsCronRuns.automation, filter.automation) : undefined,
    filter.status ? eq(opsCronRuns.status, filter.status) : undefined,
  ].filter(c => c !== undefined)
  const where = conditions.length > 0 ? and(...conditions) : undefined
  const [items, [counted]] = await Promise.all([
    db.select().from(opsCronRuns).where(where)
      .orderBy(...chosen, newest(opsCronRuns.startedAt), newest(opsCronRuns.id))
      .limit(pageSize).offset((page - 1) * pageSize),
    db.select({ n: count() }).from(opsCronRuns).where(where),
  ])
  return { items, total: Number(counted?.n ?? 0), page, pageSize }
}

/** The automates that have a run in the log (the run log's filter offers them). */
export async function automatesWithRuns(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ automation: opsCronRuns.automation }).from(opsCronRuns).orderBy(opsCronRuns.automation)
  return rows.map(row => row.automation)
}
