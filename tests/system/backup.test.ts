// npm run db:backup while the hub runs and is written to, then npm run db:restore into a
// new data folder: every table comes back with the same rows (the rows appended after the
// dump's snapshot aside), and the hub kept answering meanwhile.
import { mkdtempSync, statSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { describe, expect, it } from 'vitest'
import { FOUNDER, signIn, startHub, tempDataDir } from '../helpers/hub'
import { runTs } from '../helpers/processes'
import { TESTS_TMP } from '../helpers/database-config'
import { findRunningEmbedded, startEmbeddedServer } from '#db/embedded'

interface TableSum { table: string, rows: number, sum: string }

/** Row count and checksum of every table; append-only tables up to the given ids. */
async function tableSums(sql: postgres.Sql, upTo: Record<string, number> = {}): Promise<TableSum[]> {
  const tables = await sql<{ schema: string, name: string }[]>`
    select schemaname as schema, tablename as name from pg_tables
    where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2`
  const sums: TableSum[] = []
  for (const { schema, name } of tables) {
    const table = `"${schema}"."${name}"`
    const limit = upTo[`${schema}.${name}`]
    const where = limit === undefined ? '' : `where id <= ${limit}`
    const [row] = await sql.unsafe<{ rows: number, sum: string | null }[]>(
      `select count(*)::int as rows, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as sum from (select * from ${table} ${where}) t`)
    sums.push({ table: `${schema}.${name}`, rows: row!.rows, sum: row!.sum ?? '' })
  }
  return sums
}

describe('db:backup and db:restore', () => {
  it('backs up under write load without disturbing the hub, and restores every table identically', async () => {
    const hub = await startHub({ args: ['--no-supervisor'] })
    const writer = postgres(findRunningEmbedded(hub.dataDir)!, { max: 2, onnotice: () => {} })
    try {
      const cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
      let writing = true
      let writes = 0
      let slowestRead = 0
      const load = (async () => {
        while (writing) {
          await writer`insert into hub_audit (actor, action, target, details) values ('load', 'load_write', ${String(writes)}, ${writer.json({ n: writes })})`
          writes++
          const started = Date.now()
          const read = await fetch(`${hub.url}/api/automations`, { headers: { cookie } })
          expect(read.status).toBe(200)
          slowestRead = Math.max(slowestRead, Date.now() - started)
        }
      })()
      await new Promise(resolve => setTimeout(resolve, 500))
      const out = join(mkdtempSync(join(TESTS_TMP, 'backup-')), 'synedre.sql')
      const backup = await runTs('scripts/db-backup.ts', ['--out', out], { env: { DATA_DIR: hub.dataDir } })
      await new Promise(resolve => setTimeout(resolve, 300))
      writing = false
      await load
      expect(backup.code, backup.output).toBe(0)
      // The dump's own session inside PGlite leaves the sessions' settings as they were.
      expect((await writer<{ plan_cache_mode: string }[]>`show plan_cache_mode`)[0]!.plan_cache_mode).toBe('force_custom_plan')
      expect(backup.output).toContain(`backup written to ${out}`)
      expect(statSync(out).mode & 0o777).toBe(0o600)
      expect(writes).toBeGreaterThan(5)
      expect(slowestRead).toBeLessThan(10_000)

      const fresh = tempDataDir('restore-')
      const restore = await runTs('scripts/db-restore.ts', [out], { env: { DATA_DIR: fresh } })
      expect(restore.code, restore.output).toBe(0)
      const again = await runTs('scripts/db-restore.ts', [out], { env: { DATA_DIR: fresh } })
      expect(again.code).toBe(1)
      expect(again.output).toContain('db:restore only fills an empty one')

      const restoredServer = await startEmbeddedServer(fresh, { log: () => {} })
      const restored = postgres(restoredServer.url, { max: 1, onnotice: () => {} })
      try {
        // hub_audit is append-only and was written during the dump: compare up to the dump's last row.
        const [last] = await restored<{ id: number }[]>`select coalesce(max(id), 0)::int as id from hub_audit`
        const [loadRows] = await restored<{ n: number }[]>`select count(*)::int as n from hub_audit where action = 'load_write'`
        expect(loadRows!.n).toBeGreaterThan(0)
        const mine = await tableSums(restored)
        const theirs = await tableSums(writer, { 'public.hub_audit': last!.id })
        expect(mine.length).toBeGreaterThan(20)
        expect(mine).toEqual(theirs)
      }
      finally {
        await restored.end()
        await restoredServer.close()
      }
    }
    finally {
      await writer.end()
      await hub.interrupt()
    }
  }, 600_000)

  it('refuses DATABASE_URL with the usual tools named', async () => {
    const result = await runTs('scripts/db-backup.ts', [], { env: { DATABASE_URL: 'postgres://x@127.0.0.1:1/x' } })
    expect(result.code).toBe(2)
    expect(result.output).toContain('fix: Use pg_dump')
  })
})
