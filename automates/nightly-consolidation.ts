// nightly-consolidation [--live] [--only <feature>] [--json]
// The nightly maintenance loop (memory-and-learning §4.6), 04:00 UTC: repeated scars → one
// promotion draft, session compaction → the day's journal draft, nightly reflection → one
// draft per active agent, documentary divergence audit (rules: NIGHTLY_DIVERGENCE_RULES,
// default <vault>/.synedre/divergence.json → one draft), forgetting curve (archive,
// reversible from the hub), project proactivity (a tenant's mail thread classified),
// obsolescence audit (inactive projects past NIGHTLY_OBSOLESCENCE_DAYS → verdicts logged),
// persona drift (the 1st of the month → drift history), daily cost ticket (alerts), then the
// morning summary mail to the team when the night produced something. A dry-run is the
// default: it reads, counts and reports, writes nothing and calls no model; --live writes. Exit 0 done, 1 a
// feature failed (or failed for some of its agents or projects).
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { memoryConfig } from '#layers/memory/core/config'
import { createMailer, readMailConfig } from '#layers/atlas/core/mail/mailer'
import { runConsolidation } from '#layers/learning/core/nightly/consolidation'

export default defineAutomate({
  name: 'nightly-consolidation',
  description: 'Nightly consolidation of the learning loop: repeated scars, session compaction, nightly reflection, divergence audit, forgetting curve, project proactivity, obsolescence audit, persona drift, daily cost ticket. Dry-run unless --live.',
  scope: 'learn_lessons (archived_at), learn_nightly_marks, learn_project_threads, learn_obsolescence_log, learn_persona_drift, VAULT_DIR inbox drafts, ops_alerts (ai_cost_spike), team mail; AI facade: nightly_*',
  dryRun: true,
  leaseTtlMs: 900_000,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'live': { type: 'boolean' }, 'dry-run': { type: 'boolean' }, 'only': { type: 'string' }, 'json': { type: 'boolean' } } })
    if (values.live && values['dry-run']) throw new Error('--live and --dry-run exclude each other')
    const dryRun = !values.live
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    // The outbound mail facade: the internal team only (INTERNAL_TEAM_EMAILS), over ATLAS_SMTP_*.
    const mail = createMailer({ config: readMailConfig(process.env), db: ctx.db })
    const sendToTeam = async (summary: { subject: string, text: string }) => {
      const result = await mail.sendToTeam(summary, { actor: 'nightly-consolidation' })
      if (!result.sent && result.reason === 'no_team') ctx.notConfigured('INTERNAL_TEAM_EMAILS', 'the morning summary has no one to go to')
      return { sent: result.sent, reason: 'reason' in result ? String(result.reason) : undefined }
    }
    try {
      const report = await runConsolidation(
        {
          db: ctx.db,
          ai,
          vaultDir: memoryConfig(process.env).vaultDir,
          now: ctx.now(),
          dryRun,
          log: ctx.log,
          signal: ctx.signal,
          env: process.env,
        },
        { only: values.only, sendToTeam },
      )
      if (values.json) ctx.log(JSON.stringify(report))
      else {
        for (const f of report.features) {
          const counts = Object.entries(f.counts).map(([k, v]) => `${k}=${v}`).join(' ')
          ctx.log(`${dryRun ? '[dry-run] ' : ''}${f.feature}: ${f.error ? `FAILED ${f.error}` : counts}`)
        }
        for (const draft of report.drafts) ctx.log(`draft: ${draft}`)
        if (report.mail) ctx.log(`morning summary ${report.mail.sent ? 'sent' : `not sent (${report.mail.reason})`}: ${report.mail.subject}`)
      }
      return report.failed > 0 ? 1 : 0
    }
    finally {
      mail.close()
      await ai.flush()
    }
  },
})
