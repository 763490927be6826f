// nightly-consolidation [--live] [--only <feature>] [--json]
// The nightly maintenance loop (memory-and-learning §4.6), 04:00 UTC: repeated scars → one
// promotion draft, session compaction → the day's journal draft, forgetting curve (archive,
// reversible from the hub), daily cost ticket (alerts). A dry-run is the default: it reads,
// counts and reports, writes nothing and calls no model; --live writes. Exit 0 done, 1 a
// feature failed.
import { parseArgs } from 'node:util'
import { createAiFacade } from '../layers/ai/core/facade'
import { defineAutomate } from '../layers/health/core/automate'
import { memoryConfig } from '../layers/memory/core/config'
import { runConsolidation } from '../layers/learning/core/nightly/consolidation'

export default defineAutomate({
  name: 'nightly-consolidation',
  description: 'Nightly consolidation of the learning loop: repeated scars, session compaction, forgetting curve, daily cost ticket. Dry-run unless --live.',
  scope: 'learn_lessons (archived_at), learn_nightly_marks, VAULT_DIR inbox drafts, ops_alerts (ai_cost_spike); AI facade: nightly_*',
  leaseTtlMs: 900_000,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'live': { type: 'boolean' }, 'dry-run': { type: 'boolean' }, 'only': { type: 'string' }, 'json': { type: 'boolean' } } })
    if (values.live && values['dry-run']) throw new Error('--live and --dry-run exclude each other')
    const dryRun = !values.live
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    try {
      const report = await runConsolidation({ db: ctx.db, ai, vaultDir: memoryConfig(process.env).vaultDir, now: ctx.now(), dryRun, log: ctx.log, signal: ctx.signal }, { only: values.only })
      if (values.json) ctx.log(JSON.stringify(report))
      else {
        for (const f of report.features) {
          const counts = Object.entries(f.counts).map(([k, v]) => `${k}=${v}`).join(' ')
          ctx.log(`${dryRun ? '[dry-run] ' : ''}${f.feature}: ${f.error ? `FAILED ${f.error}` : counts}`)
        }
        for (const draft of report.drafts) ctx.log(`draft: ${draft}`)
      }
      return report.failed > 0 ? 1 : 0
    }
    finally {
      await ai.flush()
    }
  },
})
