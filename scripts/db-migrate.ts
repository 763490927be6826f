// npm run db:migrate: applies pending migrations to DATABASE_URL or the embedded database.
import { openDatabase, redactUrl } from '../db/client'
import { migrateDatabase } from '../db/migrate'
import { runCli } from './lib/cli'

runCli(async () => {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
  try {
    await migrateDatabase(database)
    process.stdout.write(`migrations applied to ${database.kind === 'embedded' ? 'the embedded database' : redactUrl(database.url)}\n`)
    return 0
  }
  finally {
    await database.close()
  }
})
