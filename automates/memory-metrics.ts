// memory-metrics [--json] [--dry-run]
// Current memory observability (memory-and-learning §4.6): today's measures of the current
// memory (files, bytes, index lines, dead links, orphans) with lessons, embeddings and
// recalls, one row per day in mem_metrics (90 days kept); a measure above its threshold
// (MEMORY_MAX_* settings) raises an alert. --dry-run measures and prints, writes nothing.
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { memoryConfig } from '#layers/memory/core/config'
import { breaches, measureMemory, recordMeasures, thresholdsFrom } from '#layers/memory/core/hygiene/metrics'

export default defineAutomate({
  name: 'memory-metrics',
  description: 'The current memory\'s daily measures (90 days) and the thresholds that raise alerts.',
  scope: 'mem_metrics, ops_alerts (reads REFLEX_DIR, learn_lessons, mem_embeddings)',
  dryRun: true,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'json': { type: 'boolean' }, 'dry-run': { type: 'boolean' } } })
    const thresholds = thresholdsFrom(process.env)
    const now = ctx.now()
    const { reflexDir } = memoryConfig(process.env)
    const measures = await measureMemory(ctx.db, reflexDir, now)
    const found = breaches(measures, thresholds)
    const pruned = values['dry-run'] ? 0 : (await recordMeasures(ctx.db, measures, found, now)).pruned
    if (values.json) ctx.log(JSON.stringify({ measures, thresholds, breaches: found, pruned, dryRun: Boolean(values['dry-run']) }))
    else {
      ctx.log(`memory ${measures.day}: ${measures.notes} files, ${measures.bytes} bytes, ${measures.indexLines} index lines, ${measures.deadLinks} dead links, ${measures.orphans} orphans, ${measures.lessons} lessons, ${measures.embeddings} embeddings, ${measures.recalls} recalls`)
      for (const breach of found) ctx.log(`  alert: ${breach.message}`)
      ctx.log(values['dry-run'] ? '[dry-run] nothing written' : `recorded; ${pruned} row(s) older than 90 days pruned`)
    }
    return 0
  },
})
