// The sanitised snapshot on both databases, pushed to a second test database: the planted
// IPs, absolute paths and tenant names are absent from what arrives, the table is created
// when missing, one row per date (upsert), the source left untouched (read-only), and each
// exit code produced by a case: 0 pushed, 1 read error, 2 push error; --dry-run pushes nothing.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { createTestDatabase, describeOnBothDatabases, type TestDatabase } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { everyTableDigest } from '#tests/helpers/table-digest'
import type { Db } from '#db/client'
import { clients } from '#db/schema/clients'
import { healthReports } from '#db/schema/health'
import { SNAPSHOT_TABLE } from '../../core/snapshot/snapshot'
import { clearNight, plantInspection } from '../fixtures/night'

const PLANTED = ['10.20.30.40', '2001:db8::7', '/srv/synedre/vault/inbox/draft.md', 'Boulangerie Martin', 'boulangerie-martin']

async function digest(db: Db, table: string): Promise<string> {
  const [row] = await db.execute<{ digest: string | null }>(sql.raw(`select md5(string_agg(t::text, '|' order by t::text)) as digest from "${table}" t`))
  return row?.digest ?? 'empty'
}
const SOURCE_TABLES = ['health_reports', 'maint_inspections', 'maint_drift_chapters', 'clients']

describeOnBothDatabases('health snapshot', (database, kind) => {
  let target: TestDatabase
  beforeAll(async () => {
    target = await createTestDatabase(kind)
  }, 60_000)
  afterAll(async () => target?.close())
  beforeEach(async () => {
    const { db } = database()
    await clearNight(db)
    await db.execute(sql`delete from clients where slug = 'boulangerie-martin'`)
    await target.db.execute(sql.raw(`drop table if exists ${SNAPSHOT_TABLE}`))
  })

  async function plant(db: Db, date = '2026-12-01') {
    await db.insert(clients).values({ slug: 'boulangerie-martin', name: 'Boulangerie Martin' }).onConflictDoNothing()
    await plantInspection(db, [{ chapter: 'docs/boulangerie-martin-deploy.md', dead: ['/srv/synedre/vault/inbox/draft.md', 'layers/atlas/core/gone.ts'], score: 60 }])
    await db.insert(healthReports).values({
      reportDate: date, status: 'critical', score: 70, careNote: 'The host 10.20.30.40 of Boulangerie Martin misses /srv/synedre/vault/inbox/draft.md.',
      dimensions: [{ key: 'automations', score: 50, status: 'critical', summary: 'failing: atlas-collect on 2001:db8::7 for boulangerie-martin' }],
    }).onConflictDoUpdate({ target: healthReports.reportDate, set: { score: 71 } })
  }
  const run = (args: string[], env: Record<string, string>) => runTs('automates/run.ts', ['health-snapshot', ...args], { env: { DATABASE_URL: database().url, ...env } })
  const pushed = async () => await target.db.execute<{ snapshot_date: string, snapshot: Record<string, unknown> }>(sql.raw(`select snapshot_date::text, snapshot from ${SNAPSHOT_TABLE} order by snapshot_date`))

  it('pushes one sanitised row per date into a table it creates; none of the planted identifiers arrive; the source is untouched', async () => {
    const { db } = database()
    await plant(db)
    const before = await Promise.all(SOURCE_TABLES.map(t => digest(db, t)))
    const first = await run([], { SNAPSHOT_DATABASE_URL: target.url })
    expect(first.code, first.output).toBe(0)
    const second = await run([], { SNAPSHOT_DATABASE_URL: target.url })
    expect(second.code, second.output).toBe(0)
    const rows = await pushed()
    expect(rows).toHaveLength(1)
    const text = JSON.stringify(rows[0]!.snapshot)
    for (const planted of PLANTED) expect(text.toLowerCase()).not.toContain(planted.toLowerCase())
    expect(rows[0]!.snapshot).toMatchObject({
      date: '2026-12-01',
      health: { status: 'critical', score: 70 },
      drift: { chaptersTotal: 10, chaptersDrifted: 1, chapters: [{ chapter: 'docs/[tenant]-deploy.md', deadReferences: ['[path]', 'layers/atlas/core/gone.ts'] }] },
      careNote: 'The host [ip] of [tenant] misses [path].',
    })
    expect(await Promise.all(SOURCE_TABLES.map(t => digest(db, t)))).toEqual(before)
    expect(second.output).not.toContain(target.url)
  }, 60_000)

  it('--dry-run prints the sanitised JSON and pushes nothing', async () => {
    const { db } = database()
    await plant(db)
    const before = await everyTableDigest(db)
    const dry = await run(['--dry-run'], { SNAPSHOT_DATABASE_URL: target.url })
    expect(dry.code, dry.output).toBe(0)
    expect(dry.output).toContain('"careNote": "The host [ip] of [tenant] misses [path]."')
    for (const planted of PLANTED) expect(dry.output).not.toContain(planted)
    const [exists] = await target.db.execute<{ present: boolean }>(sql.raw(`select to_regclass('${SNAPSHOT_TABLE}') is not null as present`))
    expect(exists!.present).toBe(false)
    expect(await everyTableDigest(db)).toEqual(before)
  }, 60_000)

  it('exit 1 on a read error or with no report to publish; exit 2 when the push fails', async () => {
    const { db } = database()
    const empty = await run([], { SNAPSHOT_DATABASE_URL: target.url })
    expect(empty.code, empty.output).toBe(1)
    expect(empty.output).toMatch(/no health report to publish/)
    await plant(db)
    await db.execute(sql`alter table maint_drift_chapters rename to maint_drift_chapters_away`)
    try {
      const broken = await run([], { SNAPSHOT_DATABASE_URL: target.url })
      expect(broken.code, broken.output).toBe(1)
      expect(broken.output).toMatch(/read error/)
    }
    finally {
      await db.execute(sql`alter table maint_drift_chapters_away rename to maint_drift_chapters`)
    }
    const unreachable = await run([], { SNAPSHOT_DATABASE_URL: 'postgres://nobody:secret-word@127.0.0.1:1/nowhere' })
    expect(unreachable.code, unreachable.output).toBe(2)
    expect(unreachable.output).toMatch(/push error/)
    expect(unreachable.output).not.toContain('secret-word')
    const runs = await db.execute<{ status: string, exit_code: number }>(sql`select status, exit_code from ops_cron_runs where automation = 'health-snapshot' order by id`)
    expect(runs.map(r => [r.status, r.exit_code])).toEqual([['failed', 1], ['failed', 1], ['failed', 2]])
  }, 90_000)

  it('without SNAPSHOT_DATABASE_URL the run is recorded as not configured', async () => {
    const { db } = database()
    await plant(db)
    const result = await run([], { SNAPSHOT_DATABASE_URL: '' })
    expect(result.code, result.output).toBe(0)
    const [last] = await db.execute<{ status: string, reason: string }>(sql`select status, reason from ops_cron_runs where automation = 'health-snapshot' order by id desc limit 1`)
    expect(last).toMatchObject({ status: 'not_configured', reason: expect.stringMatching(/SNAPSHOT_DATABASE_URL/) })
  }, 60_000)
})
