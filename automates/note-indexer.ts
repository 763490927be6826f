// note-indexer [--force] [--stats] [--json]
// Every 15 minutes: the vault's notes (frontmatter, [[wiki links]]) into mem_notes,
// incrementally by modification time; deleted notes removed; a broken frontmatter is
// reported by path and skipped; symbolic links refused. --force re-indexes everything,
// --stats counts without writing.
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { memoryConfig } from '#layers/memory/core/config'
import { indexNotes } from '#layers/memory/core/vault/indexer'

export default defineAutomate({
  name: 'note-indexer',
  description: 'Indexes the vault notes (frontmatter, wiki links) into mem_notes, incrementally.',
  scope: 'VAULT_DIR → mem_notes',
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { force: { type: 'boolean' }, stats: { type: 'boolean' }, json: { type: 'boolean' } } })
    const { vaultDir } = memoryConfig(process.env)
    const report = await indexNotes({ db: ctx.db, vaultDir }, { force: values.force, stats: values.stats })
    if (values.json) {
      ctx.log(JSON.stringify({ vault: vaultDir, ...report }))
      return 0
    }
    const verb = report.mode === 'stats' ? 'would index' : 'indexed'
    ctx.log(`${vaultDir}: ${report.scanned} note(s) scanned — ${verb} ${report.indexed}, unchanged ${report.unchanged}, ${report.mode === 'stats' ? 'would remove' : 'removed'} ${report.removed}, broken ${report.broken.length}, refused ${report.refused.length}`)
    ctx.log(`  by sub-space: ${Object.entries(report.bySpace).map(([space, count]) => `${space} ${count}`).join(', ')}`)
    for (const item of report.broken) ctx.log(`  skipped ${item.path}: ${item.problem}`)
    for (const item of report.refused) ctx.log(`  refused ${item.path}: ${item.problem}`)
    return 0
  },
})
