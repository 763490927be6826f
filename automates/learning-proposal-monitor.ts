// learning-proposal-monitor [--threshold N] [--dry-run] [--json]
// Hourly: tells the founding team by mail (the mail facade, team allowlist only) when more
// than N skill proposals are pending (default 5, or LEARNING_PROPOSAL_THRESHOLD), at most
// once an hour; prints the statistics (totals by status, mean time to decision, last hour).
import { parseArgs } from 'node:util'
import { createMailer, readMailConfig } from '#layers/atlas/core/mail/mailer'
import { defineAutomate } from '#layers/health/core/automate'
import { MONITOR_DEFAULT_THRESHOLD, monitorProposals } from '#layers/learning/core/skills/monitor'

export default defineAutomate({
  name: 'learning-proposal-monitor',
  description: 'Mails the team when pending skill proposals exceed a threshold (one-hour cool-down), with their statistics.',
  scope: 'learn_skill_proposals → ops_alerts, team mail',
  dryRun: true,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'threshold': { type: 'string' }, 'dry-run': { type: 'boolean' }, 'json': { type: 'boolean' } } })
    const raw = values.threshold ?? process.env.LEARNING_PROPOSAL_THRESHOLD
    const threshold = raw === undefined || raw === '' ? MONITOR_DEFAULT_THRESHOLD : Number(raw)
    if (!Number.isInteger(threshold) || threshold < 0) throw new Error(`the threshold must be a whole number ≥ 0, got "${raw}"`)
    const mail = createMailer({ config: readMailConfig(process.env), db: ctx.db, log: ctx.log })
    try {
      const report = await monitorProposals({ db: ctx.db, mail, now: ctx.now }, { threshold, dryRun: values['dry-run'] })
      if (report.action === 'not_sent') ctx.notConfigured('ATLAS_SMTP_HOST', 'the proposal alert could not be mailed (outbound SMTP or INTERNAL_TEAM_EMAILS missing)')
      const s = report.stats
      if (values.json) ctx.log(JSON.stringify(report))
      else ctx.log(`pending ${s.byStatus.pending} (threshold ${threshold}), promoted ${s.byStatus.promoted}, rejected ${s.byStatus.rejected}, mean time to decision ${s.meanHoursToDecision ?? '–'} h, added last hour ${s.addedLastHour}: ${report.action.replace(/_/g, ' ')}`)
      return 0
    }
    finally {
      mail.close()
    }
  },
})
