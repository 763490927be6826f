// health-report [--dry-run] [--no-voice] [--json]
// The multi-dimensional health report (seed "Nightly Maintenance Loop"): five vital dimensions,
// an overall status, Nightingale's care note (AI facade: health_care_note), one snapshot per
// date in health_reports. --dry-run prints the report and writes nothing; --no-voice skips the
// care note. Exit 0 nominal, 1 warning, 2 critical (informational: the run is still `ok`).
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { buildHealthReport, EXIT_CODES, formatReport, saveHealthReport } from '#layers/health/core/report/report'

export default defineAutomate({
  name: 'health-report',
  description: 'The five vital dimensions (proprioception, coverage, debt, learning, automations) and Nightingale\'s care note, one snapshot per date.',
  scope: 'health_reports (reads maint_*, work_tasks, ops_*; AI facade: health_care_note)',
  dryRun: true,
  leaseTtlMs: 300_000,
  informationalExitCodes: [1, 2],
  async run(ctx) {
    const { values } = parseArgs({
      args: ctx.args,
      options: { 'dry-run': { type: 'boolean' }, 'no-voice': { type: 'boolean' }, 'json': { type: 'boolean' } },
    })
    const ai = values['no-voice'] ? undefined : createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    try {
      const report = await buildHealthReport(ctx.db, { now: ctx.now(), ai, log: ctx.log, signal: ctx.signal })
      if (values.json) ctx.log(JSON.stringify(report))
      else for (const line of formatReport(report)) ctx.log(line)
      if (values['dry-run']) ctx.log('[dry-run] nothing written')
      else await saveHealthReport(ctx.db, report)
      return EXIT_CODES[report.status]
    }
    finally {
      await ai?.flush()
    }
  },
})
