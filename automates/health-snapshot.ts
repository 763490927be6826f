// health-snapshot [--dry-run]
// The sanitised snapshot (seed "Sanitized Snapshot Publishing"): reads the latest health and
// drift snapshots read-only, removes IP addresses, internal paths and tenant identifiers, and
// upserts one row per date into the database at SNAPSHOT_DATABASE_URL (table created if
// missing). --dry-run prints the JSON and pushes nothing.
// Exit 0 nominal, 1 read error (or no report to publish), 2 push error.
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { pushSnapshot, readSnapshot, SNAPSHOT_TABLE } from '#layers/health/core/snapshot/snapshot'

export default defineAutomate({
  name: 'health-snapshot',
  description: 'Pushes the sanitised health and drift snapshot (no IPs, internal paths or tenant names) to the public database.',
  scope: `reads health_reports, maint_* (read-only); writes ${SNAPSHOT_TABLE} at SNAPSHOT_DATABASE_URL`,
  dryRun: true,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'dry-run': { type: 'boolean' } } })
    let snapshot
    try {
      snapshot = await readSnapshot(ctx.db, ctx.now())
    }
    catch (error) {
      ctx.log(`read error: ${error instanceof Error ? error.message : String(error)}`)
      return 1
    }
    if (!snapshot) {
      ctx.log('read error: no health report to publish yet (run health-report first)')
      return 1
    }
    if (values['dry-run']) {
      ctx.log(JSON.stringify(snapshot, null, 2))
      ctx.log('[dry-run] nothing pushed')
      return 0
    }
    const target = process.env.SNAPSHOT_DATABASE_URL?.trim()
    if (!target) {
      ctx.notConfigured('SNAPSHOT_DATABASE_URL', 'the public database the sanitised snapshot is pushed to')
      ctx.log(`snapshot of ${snapshot.date} ready, not pushed: SNAPSHOT_DATABASE_URL is not set`)
      return 0
    }
    try {
      await pushSnapshot(target, snapshot)
    }
    catch (error) {
      // The address may hold a password: only the error's message, never the URL.
      ctx.log(`push error: ${error instanceof Error ? error.message : String(error)}`)
      return 2
    }
    ctx.log(`snapshot of ${snapshot.date} pushed (${snapshot.health.status}, ${snapshot.drift?.chapters.length ?? 0} drifting chapter(s))`)
    return 0
  },
})
