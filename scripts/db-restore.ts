// npm run db:restore -- FILE
// Loads a db:backup dump into the embedded database of DATA_DIR, which must be empty (a
// new data folder): restoring over live data would mix two histories. The whole dump runs
// as one implicit transaction, so a failure leaves the folder as empty as it was.
// For an external PostgreSQL, use psql or pg_restore (see docs/operations.md, "Where data lives and how to back it up").
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { defaultDataDir, openDatabase } from '#db/client'
import { runCli, UsageError } from './lib/cli'

runCli(async () => {
  const { positionals } = parseArgs({ allowPositionals: true })
  const file = positionals[0]
  if (!file) throw new UsageError('No backup file given.', 'Run npm run db:restore -- backups/synedre-….sql')
  if (process.env.DATABASE_URL) {
    throw new UsageError('db:restore loads into the embedded database; DATABASE_URL points at an external PostgreSQL.', 'Use psql -f FILE "$DATABASE_URL" for a db:backup file, or pg_restore for a pg_dump custom file (see docs/operations.md, "Where data lives and how to back it up").')
  }
  let dump: string
  try {
    dump = readFileSync(file, 'utf8')
  }
  catch (error) {
    throw new UsageError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code}).`, 'Give the path of a file written by npm run db:backup.')
  }
  if (!dump.startsWith('--\n-- PostgreSQL database dump') || !dump.includes('PostgreSQL database dump complete')) {
    throw new UsageError(`${file} is not a complete db:backup dump.`, 'Give the path of a file written by npm run db:backup.', 1)
  }
  const dataDir = defaultDataDir()
  const database = await openDatabase({ dataDir, max: 1 })
  try {
    const [row] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`
    if (row!.n > 0) {
      throw new UsageError(
        `The database in ${dataDir} already has ${row!.n} tables: db:restore only fills an empty one.`,
        `Restore into a new data folder (DATA_DIR=/path/to/new/data npm run db:restore -- ${file}), then point the hub at it; or stop the hub and move ${dataDir} aside first.`,
        1,
      )
    }
    // psql meta-commands (\restrict …) are for psql, not for the server.
    const script = dump.split('\n').filter(line => !line.startsWith('\\')).join('\n')
    const started = Date.now()
    await database.sql.unsafe(script).simple()
    const tables = await database.sql<{ n: number }[]>`
      select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`
    process.stdout.write(`restored ${file} into ${dataDir}: ${tables[0]!.n} tables in ${Date.now() - started} ms\n`)
    return 0
  }
  finally {
    await database.close()
  }
})
