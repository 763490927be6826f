// lock-guardian [--dry-run] [--json] [--stale-minutes N]
// Every 15 minutes: alerts on leases held 10 minutes without heartbeat or whose holder is gone;
// an alert whose mail did not go out is sent again at the next runs, for a day. Also fails the
// agent runs left `running` by a hub process that is gone (layers/agents/core/engine/sweeper.ts),
// and expires the approvals left undecided past their 72 hours (their runs fail): until then
// the dispatcher counts their agent as busy, whether or not anyone opens a runs page; and it
// removes the agent files past their retention (layers/agents/core/files/retention.ts).
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { guardLocks, isProcessAlive, STALE_AFTER_MS } from '#layers/health/core/lock-guardian'
import { createMailer, readMailConfig } from '#layers/atlas/core/mail/mailer'
import { sweepOrphanRuns } from '#layers/agents/core/engine/sweeper'
import { expireStaleApprovals } from '#layers/agents/core/engine/actions'
import { fileLimits } from '#layers/agents/core/files/limits'
import { sweepAgentFiles } from '#layers/agents/core/files/retention'

export default defineAutomate({
  name: 'lock-guardian',
  description: 'Alerts the team about zombie leases (no heartbeat for 10 minutes, or holder process gone); fails orphaned agent runs and expires stale approvals.',
  scope: 'ops_locks → ops_alerts, team mail; agent_runs, agent_approvals',
  dryRun: true,
  async run(ctx) {
    const { values } = parseArgs({
      args: ctx.args,
      options: { 'dry-run': { type: 'boolean' }, 'json': { type: 'boolean' }, 'stale-minutes': { type: 'string' } },
    })
    const staleMinutes = values['stale-minutes'] === undefined ? STALE_AFTER_MS / 60_000 : Number(values['stale-minutes'])
    if (!Number.isFinite(staleMinutes) || staleMinutes <= 0) throw new Error(`--stale-minutes must be a positive number, got "${values['stale-minutes']}"`)
    // The outbound mail facade: the internal team only (INTERNAL_TEAM_EMAILS), over ATLAS_SMTP_*.
    const mail = createMailer({ config: readMailConfig(process.env), db: ctx.db })
    const report = await guardLocks({
      db: ctx.db,
      host: ctx.host,
      isProcessAlive,
      now: ctx.now,
      notifyTeam: async (alert) => {
        const subject = `[Synedre] ${alert.message}`
        const result = await mail.sendToTeam({ subject, text: `${alert.message}\n\n${JSON.stringify(alert.details, null, 2)}\n` }, { actor: 'lock-guardian' })
        const outcome = result.sent ? `sent to ${result.recipients.join(', ')}` : result.reason === 'no_team' ? 'not sent: INTERNAL_TEAM_EMAILS is empty' : 'not sent: ATLAS_SMTP_HOST is not set'
        ctx.log(`mail to internal team (${outcome}): ${subject}`)
        if (!result.sent) {
          if (result.reason === 'no_team') ctx.notConfigured('INTERNAL_TEAM_EMAILS', 'alerts cannot be mailed: no one on the internal team list')
          else ctx.notConfigured('ATLAS_SMTP_HOST', 'alerts cannot be mailed to the team (outbound SMTP, see .env.example)')
        }
        return result.sent
      },
      log: ctx.log,
    }, { dryRun: values['dry-run'], staleAfterMs: staleMinutes * 60_000 }).finally(() => mail.close())
    // Agent runs whose hub process is gone would show `running` forever: failed, with the reason.
    const orphans = values['dry-run'] ? [] : await sweepOrphanRuns({ db: ctx.db, host: ctx.host, isProcessAlive, now: ctx.now })
    for (const orphan of orphans) ctx.log(`  agent run ${orphan.id}: ${orphan.error}`)
    const expired = values['dry-run'] ? 0 : await expireStaleApprovals(ctx.db, ctx.now())
    // The files of runs past AGENT_FILES_RETENTION_DAYS, and the uploads no run took within a day.
    const files = values['dry-run'] ? { expired: 0, unattached: 0 } : await sweepAgentFiles(ctx.db, fileLimits(process.env), ctx.now())
    if (values.json) {
      ctx.log(
        JSON.stringify({
          orphanRuns: orphans.length,
          expiredApprovals: expired,
          agentFilesRemoved: files.expired + files.unattached,
          checked: report.checked,
          zombies: report.zombies.map(z => ({ lock: z.lock.name, why: z.why })),
          newAlerts: report.newAlerts.length,
          told: report.told.length,
        }),
      )
    }
    else {
      ctx.log(`checked ${report.checked} lease(s): ${report.zombies.length} zombie(s), ${report.newAlerts.length} new alert(s), ${report.told.length} told to the team; ${orphans.length} orphaned agent run(s) failed; ${expired} stale approval(s) expired; ${files.expired + files.unattached} agent file(s) past their retention removed`)
      for (const zombie of report.zombies) ctx.log(`  ${zombie.why}: ${zombie.message}`)
    }
    return 0
  },
})
