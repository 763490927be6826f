// The hourly proposal monitor (seed §4.5): when pending skill proposals exceed a threshold,
// the founding team is told through the mail facade (never SMTP directly), at most once an
// hour. The cool-down lives in ops_alerts (one row, its notified_at), so that it holds
// across processes and the health page shows the alert.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { proposalStats, type ProposalStats } from './proposals'

export const MONITOR_DEFAULT_THRESHOLD = 5
export const MONITOR_COOLDOWN_MS = 3_600_000
const ALERT = { kind: 'skill_proposals_backlog', subject: 'learn_skill_proposals' } as const

/** The part of the mail facade the monitor needs (layers/atlas/core/mail/mailer.ts). */
export interface TeamMail {
  sendToTeam: (
    mail: { subject: string, text: string },
    context: { actor: string },
  ) => Promise<{ sent: boolean, reason?: string, recipients: string[] }>
}

export interface MonitorReport {
  stats: ProposalStats
  threshold: number
  over: boolean
  /** alerted, cooling_down (an alert went out less than an hour ago), below_threshold, not_sent (mail not configured), dry_run. */
  action: 'alerted' | 'cooling_down' | 'below_threshold' | 'not_sent' | 'dry_run'
  lastAlertAt: Date | null
}

export async function monitorProposals(
  deps: { db: Db, mail: TeamMail, now: () => Date },
  options: { threshold?: number, dryRun?: boolean } = {},
): Promise<MonitorReport> {
  const now = deps.now()
  const threshold = options.threshold ?? MONITOR_DEFAULT_THRESHOLD
  const stats = await proposalStats(deps.db, now)
  const [last] = await deps.db.execute<{ notified_at: Date | string | null }>(
    sql`select notified_at from ops_alerts where kind = ${ALERT.kind} and subject = ${ALERT.subject} and holder = ''`,
  )
  const lastAlertAt = last?.notified_at ? new Date(last.notified_at) : null
  const pending = stats.byStatus.pending
  const over = pending > threshold
  const report: MonitorReport = { stats, threshold, over, action: 'below_threshold', lastAlertAt }
  if (!over) return report
  if (lastAlertAt && now.getTime() - lastAlertAt.getTime() < MONITOR_COOLDOWN_MS) return { ...report, action: 'cooling_down' }
  if (options.dryRun) return { ...report, action: 'dry_run' }
  const message = `${pending} skill proposal(s) wait for a decision (threshold ${threshold})`
  const text = [
    `${message}: /hub/learning.`,
    '',
    `pending ${stats.byStatus.pending}, promoted ${stats.byStatus.promoted}, rejected ${stats.byStatus.rejected}`,
    `mean time to decision: ${stats.meanHoursToDecision === null ? 'no decision yet' : `${stats.meanHoursToDecision} h`}`,
    `added in the last hour: ${stats.addedLastHour}`,
  ].join('\n')
  const result = await deps.mail.sendToTeam({ subject: `[Synedre] ${message}`, text }, { actor: 'learning-proposal-monitor' })
  await deps.db.execute(sql`
    insert into ops_alerts (kind, subject, holder, message, details, raised_at, notified_at)
    values (${ALERT.kind}, ${ALERT.subject}, '', ${message}, ${JSON.stringify(stats)}::jsonb, ${now.toISOString()}::timestamptz, ${result.sent ? now.toISOString() : null}::timestamptz)
    on conflict (kind, subject, holder) do update set message = excluded.message, details = excluded.details, raised_at = excluded.raised_at,
      notified_at = coalesce(excluded.notified_at, ops_alerts.notified_at), resolved_at = null`)
  return { ...report, action: result.sent ? 'alerted' : 'not_sent', lastAlertAt: result.sent ? now : lastAlertAt }
}
