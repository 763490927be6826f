// vector-sync [--rebuild] [--source TYPE[,TYPE…]] [--dry-run] [--json]
// Daily, early morning: every source into mem_embeddings (one chunk per document, SHA-256
// fingerprint skip with no embedding call, batches of 50, upsert). --rebuild purges and
// re-embeds, --source restricts the source types, --dry-run writes and embeds nothing.
// Then the later run of the lessons' importance: the lessons recorded while no model could
// score them (memory/core/lesson-importance.ts), a batch per run.
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { defineAutomate } from '#layers/health/core/automate'
import { memoryConfig } from '#layers/memory/core/config'
import { importanceScorer, scoreUnscoredLessons } from '#layers/memory/core/lesson-importance'
import { parseScope } from '#layers/memory/core/sources'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors, VectorSyncError, type VectorSyncReport } from '#layers/memory/core/vectors/sync'

function summarise(report: VectorSyncReport): string[] {
  const lines = [
    `${report.dryRun ? '[dry-run] would embed' : 'embedded'} ${report.embedded}, unchanged ${report.unchanged}, ${report.dryRun ? 'would remove' : 'removed'} ${report.removed}`
    + `${report.rebuild && !report.dryRun ? `, purged ${report.purged}` : ''} — ${report.embedCalls} embedding call(s)`
    + `${report.target ? ` to ${report.target.provider}/${report.target.model}` : ''}`,
  ]
  for (const source of report.sources) {
    lines.push(source.skipped
      ? `  ${source.type}: skipped — ${source.skipped}`
      : `  ${source.type}: ${source.documents} document(s), embedded ${source.embedded}${source.modelChanged ? ` (${source.modelChanged} after a model change)` : ''}, unchanged ${source.unchanged}, removed ${source.removed}`)
  }
  return lines
}

export default defineAutomate({
  name: 'vector-sync',
  description: 'Embeds every memory source (scars, notes, doctrines, agents…) into the vector index; unchanged chunks are skipped.',
  scope: 'learn_*, mem_notes, REFLEX_DIR, agents, work_chantiers → mem_embeddings (AI facade: memory_sync); learn_lessons.importance (AI facade: learn_importance)',
  dryRun: true,
  leaseTtlMs: 300_000,
  async run(ctx) {
    const { values } = parseArgs({
      args: ctx.args,
      options: { 'rebuild': { type: 'boolean' }, 'source': { type: 'string', multiple: true }, 'dry-run': { type: 'boolean' }, 'json': { type: 'boolean' } },
    })
    const sources = values.source ? parseScope(values.source.join(',')) : undefined
    const config = memoryConfig(process.env)
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    const embedder = facadeEmbedder(ai, { feature: 'memory_sync' })
    try {
      const report = await syncVectors({ db: ctx.db, embedder, reflexDir: config.reflexDir, log: ctx.log, signal: ctx.signal }, { sources, rebuild: values.rebuild, dryRun: values['dry-run'] })
      const importance = values['dry-run'] ? null : await scoreUnscoredLessons(ctx.db, importanceScorer(ai), { log: ctx.log, signal: ctx.signal })
      if (values.json) ctx.log(JSON.stringify({ ...report, importance }))
      else {
        summarise(report).forEach(line => ctx.log(line))
        if (importance) ctx.log(`lessons' importance: ${importance.scored} of ${importance.candidates} unscored lesson(s) scored`)
      }
      return 0
    }
    catch (error) {
      if (!(error instanceof VectorSyncError)) throw error
      if (values.json) ctx.log(JSON.stringify({ error: error.message, ...error.report }))
      else [...summarise(error.report), `failed: ${error.message} (the embedded batches are kept; the next run goes on from there)`].forEach(line => ctx.log(line))
      return 1
    }
    finally {
      await ai.flush()
    }
  },
})
