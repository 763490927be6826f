// npm run db:backup [-- --out FILE]
// A plain-SQL dump of the embedded database, taken while the hub runs: the running owner
// dumps it with PGlite's own pg_dump (SYNEDRE DUMP on its socket, in one turn of the
// multiplexer, so the dump is consistent and other clients wait a moment, nothing more).
// For an external PostgreSQL (DATABASE_URL), use pg_dump itself (see docs/operations.md, "Where data lives and how to back it up").
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { defaultDataDir, openDatabase } from '#db/client'
import { DUMP_COMMAND } from '#db/embedded-socket'
import { runCli, UsageError } from './lib/cli'

runCli(async () => {
  const { values } = parseArgs({ options: { out: { type: 'string' } } })
  if (process.env.DATABASE_URL) {
    throw new UsageError('db:backup dumps the embedded database; DATABASE_URL points at an external PostgreSQL.', 'Use pg_dump on that server: pg_dump --format=custom --file=synedre.dump "$DATABASE_URL" (see docs/operations.md, "Where data lives and how to back it up").')
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const out = resolve(values.out ?? `backups/synedre-${stamp}.sql`)
  const database = await openDatabase({ dataDir: defaultDataDir(), max: 1 })
  try {
    const started = Date.now()
    const rows = await database.sql.unsafe<{ dump: string }[]>(DUMP_COMMAND).simple()
    const dump = rows.map(row => row.dump).join('')
    if (!dump.includes('PostgreSQL database dump complete')) throw new Error('the dump is incomplete (no closing line): nothing was written')
    mkdirSync(dirname(out), { recursive: true })
    // It holds password hashes and every message: private like the data folder.
    writeFileSync(out, dump, { mode: 0o600 })
    const tables = (dump.match(/^CREATE TABLE /gm) ?? []).length
    process.stdout.write(`backup written to ${out} (${(dump.length / 1024).toFixed(0)} KiB, ${tables} tables, ${Date.now() - started} ms)\n`)
    process.stdout.write(`restore it into an empty data folder with: DATA_DIR=/path/to/new/data npm run db:restore -- ${out}\n`)
    return 0
  }
  finally {
    await database.close()
  }
})
