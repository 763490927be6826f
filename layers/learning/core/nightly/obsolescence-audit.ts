// Feature 8, the internal obsolescence audit: every project not archived whose last activity
// (its own update, a transition of it or of its chantiers, jobs and tasks, a task change, an
// iteration) is older than the threshold (NIGHTLY_OBSOLESCENCE_DAYS, default 60) gets a
// verdict by deterministic rules — its tenant's last inbound mail (atlas_inbox) counts as a
// sign of life — persisted in learn_obsolescence_log (one row per project per night: a re-run
// updates it). The verdicts other than still_relevant go into the morning mail for an
// operator's decision; the project itself is never archived here.
import { sql } from 'drizzle-orm'
import { learnObsolescenceLog, type ObsolescenceVerdict } from '#db/schema/learn'
import type { NightlyFeature } from './context'

export const OBSOLESCENCE_DAYS_DEFAULT = 60
const DAY_MS = 86_400_000

export interface ObsolescenceSignals {
  daysInactive: number
  lastActivity: string
  openTasks: number
  tasks: number
  /** Days since the last message of the project's tenant (null: no tenant, or no message). */
  daysSinceTenantMessage: number | null
  status: string
}

export function obsolescenceDays(env: Record<string, string | undefined> = {}): number {
  const raw = env.NIGHTLY_OBSOLESCENCE_DAYS?.trim()
  if (!raw) return OBSOLESCENCE_DAYS_DEFAULT
  const days = Number(raw)
  if (!Number.isInteger(days) || days < 1) throw new Error(`NIGHTLY_OBSOLESCENCE_DAYS must be a whole number of days ≥ 1 (got ${raw})`)
  return days
}

/**
 * The rules, for a project inactive `threshold` days or more: a tenant still writing keeps it
 * relevant; inactive twice the threshold with nothing open, or three times whatever is open,
 * recommends archiving; anything else is possibly obsolete.
 */
export function obsolescenceVerdict(s: ObsolescenceSignals, threshold: number): { verdict: ObsolescenceVerdict, reason: string } {
  if (s.daysInactive < threshold) return { verdict: 'still_relevant', reason: `active ${s.daysInactive} day(s) ago` }
  if (s.daysSinceTenantMessage !== null && s.daysSinceTenantMessage < threshold) return { verdict: 'still_relevant', reason: `inactive ${s.daysInactive} days, but its tenant wrote ${s.daysSinceTenantMessage} day(s) ago` }
  if (s.daysInactive >= 3 * threshold) return { verdict: 'archive_recommended', reason: `inactive ${s.daysInactive} days (over ${3 * threshold}), ${s.openTasks} open task(s)` }
  if (s.daysInactive >= 2 * threshold && s.openTasks === 0) return { verdict: 'archive_recommended', reason: `inactive ${s.daysInactive} days (over ${2 * threshold}) with no open task` }
  return { verdict: 'possibly_obsolete', reason: `inactive ${s.daysInactive} days, ${s.openTasks} open task(s)` }
}

type Row = {
  id: string
  name: string
  status: string
  last_activity: string
  open_tasks: number
  tasks: number
  last_message: string | null
}

export const obsolescenceAudit: NightlyFeature = {
  name: 'obsolescence-audit',
  routingKey: null,
  async run(ctx) {
    const threshold = obsolescenceDays(ctx.env)
    const rows = await ctx.db.execute<Row>(sql`
      select p.id::text as id, p.name, p.status,
        greatest(p.updated_at,
          (select max(t.updated_at) from work_tasks t where t.project_id = p.id),
          (select max(i.created_at) from work_iterations i join work_tasks t on t.id = i.task_id where t.project_id = p.id),
          (select max(tr.at) from work_transitions tr where tr.entity_id in (
            select p.id union all select id from work_chantiers where project_id = p.id
            union all select id from work_jobs where project_id = p.id union all select id from work_tasks where project_id = p.id))
        )::text as last_activity,
        (select count(*) from work_tasks t where t.project_id = p.id and t.status not in ('done', 'cancelled'))::int as open_tasks,
        (select count(*) from work_tasks t where t.project_id = p.id)::int as tasks,
        (select max(m.received_at) from atlas_inbox i join atlas_messages m on m.id = i.message_id where i.tenant_id = p.tenant_id)::text as last_message
      from work_projects p where p.status <> 'archived' order by p.created_at, p.id`)
    const day = ctx.now.toISOString().slice(0, 10)
    const daysSince = (at: string) => Math.max(0, Math.floor((ctx.now.getTime() - new Date(at).getTime()) / DAY_MS))
    const evaluated = rows.map((row) => {
      const signals: ObsolescenceSignals = {
        daysInactive: daysSince(row.last_activity),
        lastActivity: new Date(row.last_activity).toISOString(),
        openTasks: Number(row.open_tasks),
        tasks: Number(row.tasks),
        daysSinceTenantMessage: row.last_message ? daysSince(row.last_message) : null,
        status: row.status,
      }
      return {
        projectId: row.id,
        name: row.name,
        inactive: signals.daysInactive >= threshold,
        ...obsolescenceVerdict(signals, threshold),
        signals,
      }
    })
    const inactive = evaluated.filter(e => e.inactive)
    if (!ctx.dryRun) {
      for (const e of inactive) {
        await ctx.db
          .insert(learnObsolescenceLog)
          .values({ projectId: e.projectId, day, verdict: e.verdict, reason: e.reason, signals: { ...e.signals } })
          .onConflictDoUpdate({
            target: [learnObsolescenceLog.projectId, learnObsolescenceLog.day],
            set: { verdict: e.verdict, reason: e.reason, signals: { ...e.signals }, createdAt: sql`now()` },
          })
      }
    }
    const count = (verdict: ObsolescenceVerdict) => inactive.filter(e => e.verdict === verdict).length
    return {
      counts: {
        projects: evaluated.length,
        inactive: inactive.length,
        thresholdDays: threshold,
        stillRelevant: count('still_relevant'),
        possiblyObsolete: count('possibly_obsolete'),
        archiveRecommended: count('archive_recommended'),
        logged: ctx.dryRun ? 0 : inactive.length,
      },
      items: evaluated.map(({ inactive: isInactive, ...e }) => ({ ...e, inactive: isInactive, day })),
      drafts: [],
    }
  },
}
