// The five vital dimensions of the health report (seed "Multi-dimensional Health Report"),
// each measured from the tables that own it, with the seed's critical thresholds:
//   proprioception — latest drift inspection: ≥ 1 chapter with a dead reference;
//   coverage       — latest coverage measure: ≥ 1 uncovered unit;
//   debt           — the worksites backlog: ≥ 1 blocked task of an active project (the
//                    backlog has no priority column; a blocked task is the one nothing moves
//                    until a person acts on, the project's maximum priority);
//   learning       — the scar indicators' refresh (the last learning-classify run that ended
//                    ok): none for more than 3 days;
//   automations    — the studio's own active automations (tenant_id null): ≥ 1 whose last run
//                    failed, or switched off with no person recorded as having done it.
// A dimension whose producer has not run yet is `unknown` with a sentence saying so — never green.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { HealthDimension, HealthStatus } from '#db/schema/health'

const DAY_MS = 86_400_000
export const LEARNING_WARNING_DAYS = 1
export const LEARNING_CRITICAL_DAYS = 3
export const STALE_TASK_DAYS = 14
export const LEARNING_AUTOMATE = 'learning-classify'

type Row = Record<string, unknown>
const num = (value: unknown) => Number(value ?? 0)
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const clamp = (score: number) => Math.max(0, Math.min(100, Math.round(score)))

export async function measureProprioception(db: Db): Promise<HealthDimension> {
  const [latest] = await db.execute<Row>(sql`
    select i.id, i.chapters_total, i.chapters_drifted, i.score, i.inspected_at,
      (select count(*) from maint_drift_chapters c where c.inspection_id = i.id and jsonb_array_length(c.dead_references) > 0)::int as dead_chapters
    from maint_inspections i order by i.inspected_at desc, i.id desc limit 1`)
  if (!latest) return { key: 'proprioception', score: null, status: 'unknown', summary: 'The maintenance loop has not inspected the documentation yet.' }
  const dead = num(latest.dead_chapters)
  const drifted = num(latest.chapters_drifted)
  const total = num(latest.chapters_total)
  const status: HealthStatus = dead > 0 ? 'critical' : drifted > 0 ? 'warning' : 'ok'
  const summary = dead > 0
    ? `${plural(dead, 'chapter')} of ${total} cite a dead reference.`
    : drifted > 0 ? `${plural(drifted, 'chapter')} of ${total} drift from the code, no dead reference.` : `All ${plural(total, 'chapter')} match the code.`
  return { key: 'proprioception', score: clamp(num(latest.score)), status, summary }
}

export async function measureCoverage(db: Db): Promise<HealthDimension> {
  const [latest] = await db.execute<Row>(sql`
    select units_total, jsonb_array_length(uncovered_units)::int as uncovered
    from maint_coverage order by measured_at desc, id desc limit 1`)
  if (!latest) return { key: 'coverage', score: null, status: 'unknown', summary: 'The maintenance loop has not measured the documentation coverage yet.' }
  const total = num(latest.units_total)
  const uncovered = num(latest.uncovered)
  return {
    key: 'coverage',
    score: total === 0 ? 100 : clamp(100 * (total - uncovered) / total),
    status: uncovered > 0 ? 'critical' : 'ok',
    summary: uncovered > 0 ? `${plural(uncovered, 'code unit')} of ${total} no chapter documents.` : `Every one of ${plural(total, 'code unit')} is documented.`,
  }
}

export async function measureDebt(db: Db, now: Date): Promise<HealthDimension> {
  const staleBefore = new Date(now.getTime() - STALE_TASK_DAYS * DAY_MS)
  const [row] = await db.execute<Row>(sql`
    select
      count(*) filter (where t.status = 'blocked')::int as blocked,
      count(*) filter (where t.status in ('todo', 'in_progress', 'review'))::int as open,
      count(*) filter (where t.status in ('todo', 'in_progress', 'review') and t.updated_at < ${staleBefore.toISOString()}::timestamptz)::int as stale
    from work_tasks t join work_projects p on p.id = t.project_id
    where p.status = 'active'`)
  const blocked = num(row?.blocked)
  const stale = num(row?.stale)
  const open = num(row?.open)
  const status: HealthStatus = blocked > 0 ? 'critical' : stale > 0 ? 'warning' : 'ok'
  const summary = blocked > 0
    ? `${plural(blocked, 'blocked task')} wait${blocked === 1 ? 's' : ''} for a person; ${open} other open.`
    : stale > 0 ? `${plural(stale, 'open task')} untouched for ${STALE_TASK_DAYS} days or more.` : `${plural(open, 'open task')}, none blocked.`
  return { key: 'debt', score: clamp(100 - 25 * blocked - 5 * stale), status, summary }
}

export async function measureLearning(db: Db, now: Date): Promise<HealthDimension> {
  const [row] = await db.execute<Row>(sql`
    select max(ended_at) as refreshed from ops_cron_runs where automation = ${LEARNING_AUTOMATE} and status = 'ok'`)
  const refreshed = row?.refreshed ? new Date(row.refreshed as string) : null
  if (!refreshed) return { key: 'learning', score: 0, status: 'critical', summary: `The scar indicators have never been refreshed (${LEARNING_AUTOMATE} has no successful run).` }
  const days = (now.getTime() - refreshed.getTime()) / DAY_MS
  const status: HealthStatus = days > LEARNING_CRITICAL_DAYS ? 'critical' : days > LEARNING_WARNING_DAYS ? 'warning' : 'ok'
  const age = days < 1 ? 'less than a day' : plural(Math.floor(days), 'day')
  return { key: 'learning', score: clamp(100 * (1 - days / LEARNING_CRITICAL_DAYS)), status, summary: `The scar indicators were refreshed ${age} ago.` }
}

const clipReason = (reason: string) => reason.length > 160 ? `${reason.slice(0, 159)}…` : reason

export async function measureAutomations(db: Db): Promise<HealthDimension> {
  const rows = await db.execute<Row>(sql`
    select a.name, a.active, a.updated_by, r.status as last_status, r.reason as last_reason
    from ops_automations a
    left join lateral (
      select status, reason from ops_cron_runs r
      where r.automation = a.name and r.status in ('ok', 'not_configured', 'failed')
      order by r.started_at desc, r.id desc limit 1
    ) r on true
    where a.tenant_id is null`)
  // Each failing automation with its last run's reason (failure-words.ts): what to do, not only who.
  const failing = rows.filter(row => row.active && row.last_status === 'failed')
    .map(row => row.last_reason ? `${String(row.name)} (${clipReason(String(row.last_reason))})` : String(row.name))
  const unintended = rows.filter(row => !row.active && !row.updated_by).map(row => String(row.name))
  const watched = rows.filter(row => row.active).length + unintended.length
  if (watched === 0) return { key: 'automations', score: null, status: 'unknown', summary: 'No automation of the studio is registered yet.' }
  const bad = failing.length + unintended.length
  const parts = [
    failing.length > 0 ? `failing: ${failing.join(', ')}` : '',
    unintended.length > 0 ? `switched off with no one recorded: ${unintended.join(', ')}` : '',
  ].filter(Boolean)
  return {
    key: 'automations',
    score: clamp(100 * (watched - bad) / watched),
    status: bad > 0 ? 'critical' : 'ok',
    summary: bad > 0 ? `${plural(bad, 'automation')} of ${watched} need care — ${parts.join('; ')}.` : `All ${plural(watched, 'automation')} of the studio ran well.`,
  }
}

export async function measureDimensions(db: Db, now: Date): Promise<HealthDimension[]> {
  return [
    await measureProprioception(db),
    await measureCoverage(db),
    await measureDebt(db, now),
    await measureLearning(db, now),
    await measureAutomations(db),
  ]
}
