// memory-reembed [--json] — re-embeds the whole vector index with the routed embedder
// (feature memory_sync; the dimension from the routing table's params.dimensions) into a
// new column, then swaps it in (layers/memory/core/vectors/reembed.ts). Exit 0 done or
// nothing to do, 1 failed (nothing swapped; what was embedded is kept for the next run).
import { openDatabase } from '#db/client'
import { createAiFacade } from '#layers/ai/core/facade'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { reembedIndex } from '#layers/memory/core/vectors/reembed'
import { runCli, UsageError } from './lib/cli'

runCli(async () => {
  const args = process.argv.slice(2)
  const unknown = args.filter(arg => arg !== '--json')
  if (unknown.length) throw new UsageError(`unknown argument ${unknown[0]}`, 'usage: memory-reembed [--json]')
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  const ai = createAiFacade({ env: process.env, db: database.db })
  try {
    const report = await reembedIndex({ db: database.db, embedder: facadeEmbedder(ai, { feature: 'memory_sync' }), log: line => process.stderr.write(`${line}\n`) })
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`)
    else if (!report.swapped) process.stdout.write(`nothing to do: the index already holds ${report.to.dimensions} dimensions, all embedded by ${report.to.model}\n`)
    else process.stdout.write(`re-embedded ${report.reembedded} chunk(s): ${report.from.dimensions} → ${report.to.dimensions} dimensions, ${report.from.models.join(', ') || 'empty'} → ${report.to.provider}/${report.to.model}\n`)
    return 0
  }
  finally {
    await ai.flush()
    await database.close()
  }
})
