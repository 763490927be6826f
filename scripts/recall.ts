// recall "query" [--k N] [--mode lex|sem|hybrid] [--scope …] [--agent CODENAME] [--tenant SLUG] [--drop-below-floor] [--json]
// Queries the memory's vector index. Exit 0 answered (even with no result), 2 bad flags,
// 1 the database could not be reached.
import { openDatabase } from '#db/client'
import { createAiFacade } from '#layers/ai/core/facade'
import { ArgsError, parseRecallArgs } from '#layers/memory/core/cli/args'
import { recall, RecallInputError } from '#layers/memory/core/recall/engine'
import { formatRecall } from '#layers/memory/core/recall/format'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { runCli, UsageError } from './lib/cli'

runCli(async () => {
  let args
  try {
    args = parseRecallArgs(process.argv.slice(2))
  }
  catch (error) {
    if (error instanceof ArgsError) throw new UsageError(error.message, `usage: ${error.usage}`)
    throw error
  }
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  const ai = createAiFacade({ env: process.env, db: database.db })
  const background: Array<Promise<unknown>> = []
  try {
    const response = await recall({
      db: database.db,
      embedder: facadeEmbedder(ai, { feature: 'memory_recall' }),
      log: line => process.stderr.write(`${line}\n`),
      background: work => background.push(work),
    }, { query: args.query, k: args.k, mode: args.mode, scope: args.scope, agent: args.agent, tenant: args.tenant, belowFloor: args.dropBelowFloor ? 'drop' : 'flag' })
    process.stdout.write(args.json ? `${JSON.stringify(response)}\n` : `${formatRecall(response).join('\n')}\n`)
    return 0
  }
  catch (error) {
    if (error instanceof RecallInputError) throw new UsageError(error.message, 'Fix the value and run the command again.')
    throw error
  }
  finally {
    await Promise.allSettled(background)
    await ai.flush()
    await database.close()
  }
})
