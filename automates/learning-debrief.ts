// learning-debrief --project ID|NAME [--tenant SLUG|ID] [--force] [--dry-run] [--via auto|facade] [--json]
// On demand (not in the crontab): the post-project debrief. Builds the project's audit bundle,
// refuses a project of fewer than 3 work items unless --force, asks the agent CLI in read-only
// mode (2 attempts) then the facade's provider (3 attempts), and writes the lesson note into
// the vault INBOX as a draft. Exit codes: 0 written (or dry run), 1 no model answered,
// 2 bad flags or unknown project, 3 refused by the ROI guard.
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { spawnProcess } from '#layers/ai/core/clients/process-runner'
import { insertLedgerRows } from '#layers/ai/core/ledger'
import { defineAutomate } from '#layers/health/core/automate'
import { DebriefError } from '#layers/learning/core/debrief/bundle'
import { runDebrief } from '#layers/learning/core/debrief/debrief'
import { memoryConfig } from '#layers/memory/core/config'

export default defineAutomate({
  name: 'learning-debrief',
  description: 'Post-project debrief: the audit bundle of a project to a model, the lesson note into the vault inbox as a draft.',
  scope: 'work_projects, work_*, atlas_spawns, atlas_spawn_events, learn_lessons → VAULT_DIR/inbox/debriefs (AI: agent CLI read-only, then facade learning_debrief)',
  dryRun: true,
  leaseTtlMs: 600_000,
  async run(ctx) {
    const { values } = parseArgs({
      args: ctx.args,
      options: { 'project': { type: 'string' }, 'tenant': { type: 'string' }, 'force': { type: 'boolean' }, 'dry-run': { type: 'boolean' }, 'via': { type: 'string' }, 'json': { type: 'boolean' } },
    })
    if (!values.project) {
      ctx.log('--project is required (the project\'s id or exact name)')
      return 2
    }
    if (values.via !== undefined && values.via !== 'auto' && values.via !== 'facade') {
      ctx.log(`--via must be auto or facade, got "${values.via}"`)
      return 2
    }
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    try {
      const report = await runDebrief({
        db: ctx.db,
        vaultDir: memoryConfig(process.env).vaultDir,
        now: ctx.now,
        log: ctx.log,
        model: {
          ai, env: process.env, runner: spawnProcess, signal: ctx.signal, log: ctx.log,
          sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
          recordLedger: entry => insertLedgerRows(ctx.db, [entry]),
        },
      }, { project: values.project, tenant: values.tenant, force: values.force, dryRun: values['dry-run'], via: values.via as 'auto' | 'facade' | undefined, actor: 'learning-debrief' })
      if (values.json) ctx.log(JSON.stringify(report))
      else if (report.dryRun) ctx.log(`[dry-run] ${report.project.name}: ${report.workItems} work item(s), bundle of ${report.bundleChars} characters; no model called, nothing written`)
      else ctx.log(`${report.project.name}: debrief written to ${report.notePath} (draft, by ${report.provider}/${report.model} via ${report.via})`)
      return 0
    }
    catch (error) {
      if (!(error instanceof DebriefError)) throw error
      ctx.log(values.json ? JSON.stringify({ error: error.code, message: error.message, ...error.details }) : `refused: ${error.message}`)
      return error.code === 'roi_guard' ? 3 : error.code === 'model_unavailable' ? 1 : 2
    }
    finally {
      await ai.flush()
    }
  },
})
