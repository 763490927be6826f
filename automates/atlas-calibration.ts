// atlas-calibration [--month YYYY-MM] [--json] [--dry-run]
// Monthly: the classifier calibration report of a month (default: the previous one) — per
// intent the count, mean and standard deviation of the confidence, the proxy success rate
// and the uncertainty rate; failures, unsafe blocks, and the promotion threshold
// (> 90 % over ≥ 30 internal jobs). Stored in atlas_calibration_reports (shown in the hub)
// unless --dry-run. Exit codes: 0 done; 1 bad arguments (named).
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { computeCalibration, formatCalibration, monthRange, previousMonth, storeCalibration } from '#layers/atlas/core/calibration'

export default defineAutomate({
  name: 'atlas-calibration',
  description: 'Monthly classifier calibration report: confidence per intent, proxy success, uncertainty, failures, promotion threshold.',
  scope: 'atlas_inbox, atlas_audit, work_* → atlas_calibration_reports',
  dryRun: true,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'month': { type: 'string' }, 'json': { type: 'boolean' }, 'dry-run': { type: 'boolean' } } })
    const month = values.month ?? previousMonth(ctx.now())
    monthRange(month)
    const report = await computeCalibration(ctx.db, month, ctx.now())
    if (!values['dry-run']) await storeCalibration(ctx.db, report)
    ctx.log(values.json ? JSON.stringify(report) : formatCalibration(report))
    return 0
  },
})
