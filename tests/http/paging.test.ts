// The hub's server-paged tables through their routes: numbered pages without gaps or repeats,
// sorting by a whitelisted column only (anything else is a 400 naming the field), filters kept,
// and the Activity CSV in the table's order over every page.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { FOUNDER, hubDatabase, signIn, startHub, type Hub } from '../helpers/hub'
import type { Database } from '#db/connection'

let hub: Hub
let cookie: string
let database: Database

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'] })
  cookie = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
  database = await hubDatabase(hub)
  // 30 hub actions by three people and 5 Atlas steps, one minute apart, on a day of their own.
  await database.db.execute(sql`insert into hub_audit (at, actor, action, target, details)
    select timestamptz '2026-02-01T08:00:00Z' + n * interval '1 minute', (array['alex@studio.test', 'bea@studio.test', 'cy@studio.test'])[1 + n % 3], 'paging_probe', 'probe-' || lpad(n::text, 2, '0'), '{}'
    from generate_series(1, 30) n`)
  await database.db.execute(sql`insert into atlas_audit (at, actor, action, details)
    select timestamptz '2026-02-01T09:00:00Z' + n * interval '1 minute', 'atlas-collect', 'paging_probe', '{}'
    from generate_series(1, 5) n`)
  await database.db.execute(sql`insert into ops_cron_runs (automation, args, host, pid, status, exit_code, started_at, ended_at, duration_ms)
    select 'paging-probe', '[]', 'probe-host', 1, case when n % 4 = 0 then 'failed' else 'ok' end, case when n % 4 = 0 then 1 else 0 end,
      timestamptz '2026-02-01T00:00:00Z' + n * interval '1 minute', timestamptz '2026-02-01T00:00:00Z' + n * interval '1 minute', n * 10
    from generate_series(1, 23) n`)
})

afterAll(async () => {
  await database?.close()
  await hub?.interrupt()
})

const get = (path: string) => fetch(`${hub.url}${path}`, { headers: { cookie } })

type Activity = {
  items: Array<{ source: string, actor: string, target: string | null, at: string }>
  total: number
  page: number
  pageSize: number
  actions: string[]
}
const probes = '/api/activity?action=paging_probe&since=2026-02-01T00:00:00Z&until=2026-02-02T00:00:00Z'

it('Activity: numbered pages of the chosen size, newest first, without gaps or repeats', async () => {
  const pages: Activity[] = []
  for (const page of [1, 2, 3, 4]) pages.push(await (await get(`${probes}&pageSize=10&page=${page}`)).json() as Activity)
  expect(pages.map(p => [p.page, p.pageSize, p.total, p.items.length])).toEqual([
    [1, 10, 35, 10],
    [2, 10, 35, 10],
    [3, 10, 35, 10],
    [4, 10, 35, 5],
  ])
  const rows = pages.flatMap(p => p.items)
  expect(new Set(rows.map(row => `${row.source}:${row.at}`)).size).toBe(35)
  const times = rows.map(row => row.at)
  expect(times).toEqual([...times].sort().reverse())
  // The Atlas steps are the newest (9:01–9:05).
  expect(rows.slice(0, 5).every(row => row.source === 'atlas')).toBe(true)
  // A page past the end is empty, not an error.
  const beyond = await (await get(`${probes}&pageSize=10&page=9`)).json() as Activity
  expect([beyond.total, beyond.items.length]).toEqual([35, 0])
})

it('Activity: sorts by a whitelisted column, either way, the filters still applied', async () => {
  const byTarget = await (await get(`${probes}&source=hub&sort=target&dir=asc&pageSize=25`)).json() as Activity
  expect(byTarget.total).toBe(30)
  expect(byTarget.items.slice(0, 3).map(row => row.target)).toEqual(['probe-01', 'probe-02', 'probe-03'])
  const second = await (await get(`${probes}&source=hub&sort=target&dir=asc&pageSize=25&page=2`)).json() as Activity
  expect(second.items.map(row => row.target)).toEqual(['probe-26', 'probe-27', 'probe-28', 'probe-29', 'probe-30'])
  const desc = await (await get(`${probes}&source=hub&sort=target&dir=desc&pageSize=10`)).json() as Activity
  expect(desc.items[0]!.target).toBe('probe-30')

  const byActor = await (await get(`${probes}&sort=actor&dir=asc&pageSize=100`)).json() as Activity
  const actors = byActor.items.map(row => row.actor)
  expect(actors).toEqual([...actors].sort())
  expect(actors[0]).toBe('alex@studio.test')
  // Within one actor, newest first breaks the tie.
  const alex = byActor.items.filter(row => row.actor === 'alex@studio.test').map(row => row.at)
  expect(alex).toEqual([...alex].sort().reverse())

  const oldest = await (await get(`${probes}&sort=at&dir=asc&pageSize=10`)).json() as Activity
  expect(oldest.items[0]!.target).toBe('probe-01')

  const filtered = await (await get(`${probes}&actor=bea&sort=target&dir=asc&pageSize=10`)).json() as Activity
  expect(filtered.total).toBe(10)
  expect(filtered.items.every(row => row.actor === 'bea@studio.test')).toBe(true)
})

it('Activity: a column outside the whitelist, a bad direction or page is a 400 naming the field', async () => {
  for (const [query, field] of [['sort=details', 'sort'], ['sort=id;drop table hub_audit', 'sort'], ['sort=actor&dir=sideways', 'dir'], ['page=0', 'page'], ['pageSize=1000', 'pageSize'], ['page=two', 'page']] as const) {
    const response = await get(`/api/activity?${query}`)
    expect(response.status, query).toBe(400)
    expect(JSON.stringify(await response.json()), query).toContain(field)
  }
  // Nothing was dropped or changed.
  expect(((await (await get(`${probes}&pageSize=10`)).json()) as Activity).total).toBe(35)
})

it('Activity CSV: the whole selection in the table\'s order, whatever the page', async () => {
  const csv = await (await get(`${probes}&source=hub&sort=target&dir=asc&page=3&pageSize=10&format=csv`)).text()
  const lines = csv.trim().split('\r\n')
  expect(lines).toHaveLength(31)
  expect(lines[1]).toContain('"probe-01"')
  expect(lines[30]).toContain('"probe-30"')
})

type RunLog = {
  automation: unknown
  runs: { items: Array<{ status: string, durationMs: number, startedAt: string }>, total: number, page: number, pageSize: number }
}

it('Run log: numbered pages and sorting, 400 on a column outside the whitelist', async () => {
  const first = await (await get('/api/automations/paging-probe/runs?pageSize=10')).json() as RunLog
  const third = await (await get('/api/automations/paging-probe/runs?pageSize=10&page=3')).json() as RunLog
  expect([first.runs.total, first.runs.items.length, third.runs.items.length]).toEqual([23, 10, 3])
  expect(first.runs.items[0]!.durationMs).toBe(230)
  expect(third.runs.items.at(-1)!.durationMs).toBe(10)

  const failedFirst = await (await get('/api/automations/paging-probe/runs?pageSize=10&sort=status&dir=asc')).json() as RunLog
  expect(failedFirst.runs.items.slice(0, 5).map(run => run.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed'])
  expect(failedFirst.runs.items[5]!.status).toBe('ok')
  const shortest = await (await get('/api/automations/paging-probe/runs?pageSize=10&sort=durationMs&dir=asc')).json() as RunLog
  expect(shortest.runs.items.map(run => run.durationMs).slice(0, 3)).toEqual([10, 20, 30])

  const refused = await get('/api/automations/paging-probe/runs?sort=output_tail')
  expect(refused.status).toBe(400)
  expect(JSON.stringify(await refused.json())).toContain('sort')
})

it('Inbox: the same paging keys, the same 400 on a column outside the whitelist', async () => {
  const refused = await get('/api/atlas/inbox?sort=body')
  expect(refused.status).toBe(400)
  expect(JSON.stringify(await refused.json())).toContain('sort')
  const ok = await (await get('/api/atlas/inbox?page=1&pageSize=10&sort=subject&dir=asc')).json() as { total: number, pageSize: number }
  expect(ok.pageSize).toBe(10)
})
