// atlas-spawn [--dry-run] [--json] [--limit N]
// Every 5 minutes, offset 2 (after the collector): the spawn orchestrator. Recovers spawns
// whose worker is gone (a message lost 3 times within the hour goes to a person, and the team
// is mailed), then queues up to 3 eligible messages (classified, intent run /
// chantier / question / negociation, no spawn audit within the hour) as pg-boss jobs for the
// spawn workers, each under its message lease (held → spawn_skipped_lock_held).
// ATLAS_SPAWN_DISABLED=1 switches it off (it says so and exits 0).
// Exit codes: 0 the cycle ran (or the engine is off); 1 the queue or database failed;
// 2 bad configuration or flags (the variable and the fix are named).
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { AtlasConfigError } from '#layers/atlas/core/config'
import { createMailer, readMailConfig } from '#layers/atlas/core/mail/mailer'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { spawnDatabaseUrl } from '#layers/spawn/core/connection'
import { DISABLED_MESSAGE, runOrchestratorCycle } from '#layers/spawn/core/orchestrator'
import { openSpawnQueue } from '#layers/spawn/core/queue'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

export default defineAutomate({
  name: 'atlas-spawn',
  description: 'Atlas spawn orchestrator: queues eligible classified messages for the headless agent (at most 3 per cycle), recovers lost spawns.',
  scope: 'atlas_inbox, atlas_spawns, atlas_audit, ops_locks (message leases), agents counters → pg-boss queue atlas-spawn, team mail',
  dryRun: true,
  async run(ctx) {
    let values
    try {
      ({ values } = parseArgs({ args: ctx.args, options: { 'dry-run': { type: 'boolean' }, 'json': { type: 'boolean' }, 'limit': { type: 'string' } } }))
    }
    catch (error) {
      ctx.log(`[atlas-spawn] ${(error as Error).message}`)
      return 2
    }
    const limit = values.limit === undefined ? undefined : Number(values.limit)
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      ctx.log(`[atlas-spawn] --limit must be a whole number ≥ 1, got "${values.limit}"`)
      return 2
    }
    let config, mailConfig
    try {
      config = readSpawnConfig(process.env)
      mailConfig = readMailConfig(process.env)
    }
    catch (error) {
      if (error instanceof AtlasConfigError) {
        ctx.log(`[atlas-spawn] configuration: ${error.message}`)
        return 2
      }
      throw error
    }
    if (config.disabled) {
      ctx.log(values.json ? JSON.stringify({ disabled: true, note: DISABLED_MESSAGE }) : `[atlas-spawn] ${DISABLED_MESSAGE}`)
      return 0
    }
    const queue = await openSpawnQueue({ connectionString: spawnDatabaseUrl(process.env), log: ctx.log })
    const mail = createMailer({ config: mailConfig, db: ctx.db, log: ctx.log })
    try {
      const report = await runOrchestratorCycle({ ...spawnPorts, db: ctx.db, queue, config, mail, actor: 'atlas-spawn', host: ctx.host, pid: process.pid, log: ctx.log }, { dryRun: values['dry-run'], limit })
      if (values.json) ctx.log(JSON.stringify(report))
      else {
        ctx.log(`[atlas-spawn] ${report.candidates.length} candidate(s)${values['dry-run'] ? ' (dry run: nothing queued)' : `: ${report.queued.length} queued, ${report.skippedLockHeld.length} skipped (lease held), ${report.stale.length} changed meanwhile`}`
          + `; recovered ${report.recovered.lost.length} lost spawn(s), re-sent ${report.recovered.resent.length} job(s)`)
      }
      return 0
    }
    finally {
      mail.close()
      await queue.stop()
    }
  },
})
