// atlas-spawn-worker [--forever] [--max-jobs N] [--json]
// The spawn worker: takes jobs from the atlas-spawn queue within the global and per-host
// caps (SPAWN_GLOBAL_CONCURRENCY, SPAWN_HOST_CONCURRENCY) and runs each spawn to its end:
// the agent in its pseudo-terminal, live events, the result contract, deploy, browser QA,
// re-spawns, the team's e-mail.
//
// Single host (the default): the crontab runs it every minute through the supervision
// wrapper; it works while there are jobs, then exits (a spawn may hold it up to ~1 hour; the
// minutes in between are skipped by its lease, as for any automate).
// More hosts: run a long-lived worker on each one, outside the crontab (its own lease-free
// process; the caps are kept in the database):
//   node --import tsx automates/atlas-spawn-worker.ts --forever
// Exit codes: 0 done (or the engine is off: ATLAS_SPAWN_DISABLED=1); 1 the queue or
// database failed; 2 bad configuration or flags.
import { hostname } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { Db } from '#db/client'
import { defineAutomate } from '#layers/health/core/automate'
import { AtlasConfigError } from '#layers/atlas/core/config'
import { createMailer, readMailConfig } from '#layers/atlas/core/mail/mailer'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { spawnDatabaseUrl } from '#layers/spawn/core/connection'
import { openSpawnQueue } from '#layers/spawn/core/queue'
import { runSpawnWorker } from '#layers/spawn/core/worker'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

interface WorkerRun { db: Db, args: string[], host: string, log: (line: string) => void, signal: AbortSignal }

async function work(ctx: WorkerRun): Promise<number> {
  let values
  try {
    ({ values } = parseArgs({ args: ctx.args, options: { 'forever': { type: 'boolean' }, 'max-jobs': { type: 'string' }, 'json': { type: 'boolean' } } }))
  }
  catch (error) {
    ctx.log(`[atlas-spawn-worker] ${(error as Error).message}`)
    return 2
  }
  const maxJobs = values['max-jobs'] === undefined ? undefined : Number(values['max-jobs'])
  if (maxJobs !== undefined && (!Number.isInteger(maxJobs) || maxJobs < 1)) {
    ctx.log(`[atlas-spawn-worker] --max-jobs must be a whole number ≥ 1, got "${values['max-jobs']}"`)
    return 2
  }
  let config, mailConfig
  try {
    config = readSpawnConfig(process.env)
    mailConfig = readMailConfig(process.env)
  }
  catch (error) {
    if (error instanceof AtlasConfigError) {
      ctx.log(`[atlas-spawn-worker] configuration: ${error.message}`)
      return 2
    }
    throw error
  }
  if (config.disabled) {
    ctx.log('[atlas-spawn-worker] the spawn engine is disabled (ATLAS_SPAWN_DISABLED=1): no job is taken; unset it to resume')
    return 0
  }
  const url = spawnDatabaseUrl(process.env)
  const queue = await openSpawnQueue({ connectionString: url, supervise: true, log: ctx.log })
  const mail = createMailer({ config: mailConfig, db: ctx.db, log: ctx.log })
  try {
    const report = await runSpawnWorker({
      ...spawnPorts,
      db: ctx.db, queue, config, mail, host: ctx.host, pid: process.pid, actor: 'atlas-spawn-worker', log: ctx.log, signal: ctx.signal,
      env: { ...process.env, DATABASE_URL: url },
    }, { mode: values.forever ? 'forever' : 'drain', maxJobs })
    if (values.json) ctx.log(JSON.stringify(report))
    else ctx.log(`[atlas-spawn-worker] ${report.processed} job(s): ${report.outcomes.map(o => `#${o.messageId} ${o.outcome}`).join(', ') || 'none'}`)
    return 0
  }
  finally {
    mail.close()
    await queue.stop()
  }
}

export default defineAutomate({
  name: 'atlas-spawn-worker',
  description: 'Atlas spawn worker: runs queued spawns (agent in a pseudo-terminal, live events, deploy, browser QA, re-spawns, team e-mail).',
  scope: 'pg-boss queue atlas-spawn → atlas_spawns, atlas_spawn_events, atlas_inbox, atlas_audit, atlas_reply_drafts, ai_consumption; agent CLI, DEPLOY_COMMAND, chromium, team mail',
  // Heartbeated at a third: a spawn can run ~1 hour, the lease only needs to outlive a missed beat.
  leaseTtlMs: 120_000,
  run: ctx => work(ctx),
})

// A long-lived worker for additional hosts, outside the supervision wrapper.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { openDatabase } = await import('#db/client')
  const { runCli } = await import('#scripts/lib/cli')
  runCli(async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 4 })
    const stop = new AbortController()
    process.once('SIGTERM', () => stop.abort(new Error('SIGTERM')))
    process.once('SIGINT', () => stop.abort(new Error('SIGINT')))
    try {
      return await work({ db: database.db, args: process.argv.slice(2), host: hostname(), log: line => process.stdout.write(`${line}\n`), signal: stop.signal })
    }
    finally {
      await database.close()
    }
  })
}
