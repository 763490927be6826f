// npm run db:migrate: applies pending migrations to DATABASE_URL or the embedded database,
// then seeds the agents' roster (idempotent), as `npm start` does: an installation migrated
// this way and driven by the crontab had no registry agent, so every spawn logged
// "no agent with codename orchestrator" and no agent's counters moved.
import { openDatabase, redactUrl } from '#db/client'
import { migrateDatabase } from '#db/migrate'
import { seedAgents } from '#layers/agents/core/seed'
import { seedBuiltInSkills } from '#layers/skills/core/builtins'
import { runCli } from './lib/cli'

runCli(async () => {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
  try {
    await migrateDatabase(database)
    const roster = await seedAgents(database.db)
    await seedBuiltInSkills(database.db)
    process.stdout.write(`migrations applied to ${database.kind === 'embedded' ? 'the embedded database' : redactUrl(database.url)}; agent roster: ${roster.inserted} added, ${roster.updated} updated\n`)
    return 0
  }
  finally {
    await database.close()
  }
})
