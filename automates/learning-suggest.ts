// learning-suggest [--limit N] [--dry-run] [--delay-ms N] [--json]
// The suggestion engine (memory-and-learning §4.2): learnable lessons not yet proposed, most
// important first, at most 50 a run → personal data scrubbed → the model proposes one of the
// six destinations with a diff → scrubbed again → inserted `pending` for a person to decide
// in the hub. Never writes to a destination. Idempotent: one suggestion per lesson.
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { callDelayMs, runSuggestions, SUGGEST_BATCH_MAX } from '#layers/learning/core/suggest'

export default defineAutomate({
  name: 'learning-suggest',
  description: 'Turns learnable lessons into pending suggestions (six destinations), personal data scrubbed, for a person to validate in the hub.',
  scope: 'learn_lessons → learn_suggestions (AI facade: learn_suggest)',
  dryRun: true,
  leaseTtlMs: 600_000,
  async run(ctx) {
    const { values } = parseArgs({
      args: ctx.args,
      options: { 'limit': { type: 'string' }, 'dry-run': { type: 'boolean' }, 'delay-ms': { type: 'string' }, 'json': { type: 'boolean' } },
    })
    const limit = values.limit === undefined ? SUGGEST_BATCH_MAX : Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > SUGGEST_BATCH_MAX) throw new Error(`--limit must be a whole number from 1 to ${SUGGEST_BATCH_MAX}`)
    const delayMs = values['delay-ms'] === undefined ? callDelayMs(process.env) : Number(values['delay-ms'])
    if (!Number.isInteger(delayMs) || delayMs < 0) throw new Error('--delay-ms must be a whole number of milliseconds')
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    try {
      const report = await runSuggestions({ db: ctx.db, ai }, { limit, dryRun: values['dry-run'], delayMs, log: ctx.log, signal: ctx.signal })
      if (values.json) ctx.log(JSON.stringify(report))
      else {
        ctx.log(`${values['dry-run'] ? '[dry-run] would propose for' : 'proposed'} ${values['dry-run'] ? report.candidates : report.inserted} of ${report.candidates} learnable lesson(s), ${report.failed} failed; personal data scrubbed: ${report.scrubbedIn} in the prompts, ${report.scrubbedOut} in the answers`)
        for (const outcome of report.outcomes.filter(o => o.status === 'failed')) ctx.log(`  lesson #${outcome.lessonId}: ${outcome.error}`)
      }
      // Failures leave their lessons for the next run; a run where every call failed is an error.
      return report.candidates > 0 && report.failed === report.candidates ? 1 : 0
    }
    finally {
      await ai.flush()
    }
  },
})
