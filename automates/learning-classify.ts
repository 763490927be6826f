// learning-classify [--limit N] [--dry-run] [--json]
// The scar classifier (memory-and-learning §4.6): the scars not yet qualified → error type,
// re-estimated severity, confidence, rationale prefixed `learnable:true|false`, proposed tags.
// The learnable verdict stays in the rationale (a person sets the flag). An answer outside
// the schema is recorded as that scar's failure and the run goes on.
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { CLASSIFY_BATCH_MAX, runClassifier } from '#layers/learning/core/classify'

export default defineAutomate({
  name: 'learning-classify',
  description: 'Qualifies the uncategorised scars: error type, severity, confidence, rationale (learnable:true|false), tags.',
  scope: 'learn_lessons (classifier columns; AI facade: learn_classify)',
  dryRun: true,
  leaseTtlMs: 600_000,
  async run(ctx) {
    const { values } = parseArgs({
      args: ctx.args,
      options: { 'limit': { type: 'string' }, 'dry-run': { type: 'boolean' }, 'json': { type: 'boolean' } },
    })
    const limit = values.limit === undefined ? CLASSIFY_BATCH_MAX : Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > CLASSIFY_BATCH_MAX) throw new Error(`--limit must be a whole number from 1 to ${CLASSIFY_BATCH_MAX}`)
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    try {
      const report = await runClassifier({ db: ctx.db, ai }, { limit, dryRun: values['dry-run'], log: ctx.log, signal: ctx.signal })
      if (values.json) ctx.log(JSON.stringify(report))
      else {
        ctx.log(`${values['dry-run'] ? '[dry-run] would classify' : 'classified'} ${values['dry-run'] ? report.candidates : report.classified} of ${report.candidates} scar(s), ${report.failed} failed`)
        for (const outcome of report.outcomes.filter(o => o.status === 'failed')) ctx.log(`  scar #${outcome.lessonId}: ${outcome.error}`)
      }
      return report.candidates > 0 && report.failed === report.candidates ? 1 : 0
    }
    finally {
      await ai.flush()
    }
  },
})
