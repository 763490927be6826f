// learning-skill-detector [--dry-run] [--limit N] [--days N] [--json]
// Weekly (Sunday 04:00 UTC): the recent successful spawns to a model that names recurring
// patterns; the ones seen in at least 3 spawns, not already a skill nor a pending proposal,
// become `pending` skill proposals with their evidence. Never writes the skills registry.
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { DETECTOR_DEFAULT_LIMIT, DETECTOR_WINDOW_DAYS, detectSkillPatterns } from '#layers/learning/core/skills/detector'

function positive(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 500) throw new Error(`${flag} must be an integer between 1 and 500, got "${value}"`)
  return n
}

export default defineAutomate({
  name: 'learning-skill-detector',
  description: 'Finds patterns recurring in at least 3 recent successful spawns and proposes them as skills, for the founder to decide.',
  scope: 'atlas_spawns, atlas_spawn_events, work_iterations, skills → learn_skill_proposals (AI facade: learning_skill_detector)',
  dryRun: true,
  leaseTtlMs: 600_000,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'dry-run': { type: 'boolean' }, 'limit': { type: 'string' }, 'days': { type: 'string' }, 'json': { type: 'boolean' } } })
    const limit = positive(values.limit, DETECTOR_DEFAULT_LIMIT, '--limit')
    const windowDays = positive(values.days, DETECTOR_WINDOW_DAYS, '--days')
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    try {
      const report = await detectSkillPatterns({ db: ctx.db, ai, now: ctx.now, log: ctx.log, signal: ctx.signal }, { dryRun: values['dry-run'], limit, windowDays })
      if (values.json) ctx.log(JSON.stringify(report))
      else {
        ctx.log(`${report.spawns} successful spawn(s) read, ${report.found} pattern(s) found, ${report.dryRun ? 'would propose' : 'proposed'} ${report.inserted.length}, dropped ${report.dropped.length}`)
        for (const p of report.inserted) ctx.log(`  + ${p.name} (seen in ${p.spawns} spawns)`)
        for (const d of report.dropped) ctx.log(`  - ${d.name}: ${d.why}`)
      }
      return 0
    }
    catch (error) {
      // A model down or an answer outside the schema: nothing was inserted; the next week retries.
      ctx.log(values.json ? JSON.stringify({ error: 'detector_failed', message: (error as Error).message }) : `failed: ${(error as Error).message}`)
      return 1
    }
    finally {
      await ai.flush()
    }
  },
})
