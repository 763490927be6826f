// The automation registry (ops_automations): kept in step with the crontab, listed in
// the hub with each automate's last run, switched on and off by a founder (audited).
import { eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/client'
import { opsAutomations } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import type { CrontabEntry } from './crontab'

export interface AutomateDescription { name: string, description: string, scope: string, dryRun?: boolean }

/** Upserts one registry row per crontab entry; never touches `active`. */
export async function syncAutomations(
  db: Db,
  entries: CrontabEntry[],
  describe: (name: string) => AutomateDescription | undefined,
): Promise<void> {
  for (const entry of entries) {
    const about = describe(entry.automation)
    const values = {
      schedule: entry.schedule,
      args: entry.args,
      dryRun: about?.dryRun ?? false,
      scope: about?.scope ?? '',
      description: about?.description ?? '',
    }
    await db
      .insert(opsAutomations)
      .values({ name: entry.automation, ...values })
      .onConflictDoUpdate({ target: opsAutomations.name, set: values })
  }
}

export interface AutomationOverview {
  name: string
  schedule: string
  scope: string
  description: string
  /** The crontab line's flags. */
  args: string[]
  dryRun: boolean
  active: boolean
  updatedBy: string | null
  lastRun: null | {
    status: string
    startedAt: string
    endedAt: string | null
    exitCode: number | null
    durationMs: number | null
    reason: string | null
  }
}

export async function listAutomations(db: Db): Promise<AutomationOverview[]> {
  const rows = await db.execute<{
    name: string
    schedule: string
    scope: string
    description: string
    args: string
    dry_run: boolean
    active: boolean
    updated_by: string | null
    status: string | null
    started_at: Date | string | null
    ended_at: Date | string | null
    exit_code: number | null
    duration_ms: number | null
    reason: string | null
  }>(sql`
    select a.name, a.schedule, a.scope, a.description, a.args::text as args, a.dry_run, a.active, a.updated_by,
           r.status, r.started_at, r.ended_at, r.exit_code, r.duration_ms, r.reason
    from ops_automations a
    left join lateral (
      select * from ops_cron_runs r where r.automation = a.name order by r.started_at desc, r.id desc limit 1
    ) r on true
    order by a.name`)
  const iso = (value: Date | string | null) => value === null ? null : new Date(value).toISOString()
  return rows.map(row => ({
    name: row.name,
    schedule: row.schedule,
    scope: row.scope,
    description: row.description,
    args: z.array(z.string()).parse(JSON.parse(row.args)),
    dryRun: row.dry_run,
    active: row.active,
    updatedBy: row.updated_by,
    lastRun:
      row.status === null
        ? null
        : {
            status: row.status,
            startedAt: iso(row.started_at)!,
            endedAt: iso(row.ended_at),
            exitCode: row.exit_code,
            durationMs: row.duration_ms,
            reason: row.reason,
          },
  }))
}

/** Switches the circuit breaker; returns false when no such automation exists. */
export async function setAutomationActive(db: Db, name: string, active: boolean, actor: string): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const updated = await tx.update(opsAutomations)
      .set({ active, updatedBy: actor, updatedAt: sql`now()` })
      .where(eq(opsAutomations.name, name))
      .returning({ name: opsAutomations.name })
    if (updated.length === 0) return false
    await recordAudit(tx, { actor, action: active ? 'automation_enabled' : 'automation_disabled', target: name })
    return true
  })
}

/** Changes whenever the home page's numbers could: runs (started, progressing, ended), switches, alerts. */
export async function automationsVersion(db: Db): Promise<string> {
  const [row] = await db.execute<{ version: string }>(sql`
    select concat_ws(':',
      (select count(*) from ops_cron_runs),
      (select count(*) from ops_cron_runs where ended_at is null),
      (select coalesce(sum(length(output_tail)), 0) from ops_cron_runs where ended_at is null),
      (select coalesce(max(updated_at)::text, '') from ops_automations),
      (select count(*) from ops_alerts),
      (select count(*) from ops_alerts where resolved_at is null)) as version`)
  return row!.version
}

/** One registry row with its last run, or undefined. */
export async function findAutomation(db: Db, name: string): Promise<AutomationOverview | undefined> {
  return (await listAutomations(db)).find(automation => automation.name === name)
}
