// npm run automate <name> -- [flags]   (or scripts/automate <name> [flags] from cron)
// Runs one automate through the supervision wrapper and exits with its code.
import { hostname } from 'node:os'
import { openDatabase } from '#db/client'
import { runCli, UsageError } from '#scripts/lib/cli'
import { supervise } from '#layers/health/core/supervise'
import { automateNames, automates } from './registry'

runCli(async () => {
  const [name, ...args] = process.argv.slice(2)
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(`usage: npm run automate <name> -- [flags]\nautomates: ${automateNames.join(', ')}\n`)
    return name ? 0 : 2
  }
  const load = automates[name]
  if (!load) throw new UsageError(`unknown automate "${name}"`, `Known automates: ${automateNames.join(', ')}.`)
  const automate = await load()
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 })
  const stop = new AbortController()
  const onSignal = (signal: NodeJS.Signals) => stop.abort(new Error(`received ${signal}`))
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
  try {
    const result = await supervise({
      db: database.db,
      host: hostname(),
      pid: process.pid,
      write: text => process.stdout.write(text),
      signal: stop.signal,
    }, automate, args)
    return result.exitCode
  }
  finally {
    await database.close()
  }
})
