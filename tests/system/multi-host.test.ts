// Several hosts, simulated for real: the hub (the spawn orchestrator) in one namespace, spawn
// workers in two others (UTS + PID + mount namespaces, own host names, own /proc), all on one
// PostgreSQL cluster of the test's own over loopback. Shown in the output and asserted:
//   1. the global and per-host caps hold across the hosts (running spawns sampled per host);
//   2. a worker host killed whole mid-spawn (SIGKILL to its init): the spawn is marked lost
//      and retried on the other host, the audit trail telling so;
//   3. a PostgreSQL restart mid-load is survived by every process: they reconnect, spawns
//      complete, no lease is left held, no event is lost.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectDatabase, type Database } from '#db/connection'
import { STAND_IN_AGENT } from '#layers/spawn/tests/fixtures/wrapper'
import { actions, audits, classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { startHost, type SimulatedHost } from '../helpers/hosts'
import { startTestCluster, type TestCluster } from '../helpers/pg-cluster'

const HOST_CAP = 2
const GLOBAL_CAP = 3
const WORKER = 'automates/atlas-spawn-worker.ts'
const ORCHESTRATE = 'layers/spawn/tests/fixtures/orchestrate.ts'
// Host lines worth showing in the test's output (the rest is kept in each host's lines).
const NOTEWORTHY = /spawn .* lost|spawn failed|not stored|could not|failed\b.*:|"failed"|reconnect|retrying|attempt \d/
const say = (line: string) => console.log(`[multi-host] ${line}`)

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => null)
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 200))
  }
}

/** The spawns running on each simulated host right now, read from /proc: distinct spawn markers per UTS namespace. */
function runningPerNamespace(hosts: SimulatedHost[]): Record<string, number> {
  const namespaceOf = new Map<string, string>()
  for (const host of hosts) {
    try {
      namespaceOf.set(readlinkSync(`/proc/${host.initPid()}/ns/uts`), host.name)
    }
    catch {
      // A host killed a moment ago has no init any more.
    }
  }
  const spawns = new Map<string, Set<string>>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const host = namespaceOf.get(readlinkSync(`/proc/${entry}/ns/uts`))
      if (!host) continue
      const marker = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').find(item => item.startsWith('SYNEDRE_SPAWN_ID='))
      if (marker) spawns.set(host, (spawns.get(host) ?? new Set()).add(marker))
    }
    catch {
      // The process ended while it was read.
    }
  }
  return Object.fromEntries([...spawns].map(([host, markers]) => [host, markers.size]))
}

describe('several hosts on one PostgreSQL', { timeout: 600_000 }, () => {
  let cluster: TestCluster
  let database: Database
  let base: string
  let env: Record<string, string>
  const hosts = new Map<string, SimulatedHost>()
  const samples: Array<{ at: number, perHost: Record<string, number> }> = []
  let sampler: NodeJS.Timeout | undefined

  const start = (name: string, processes: Parameters<typeof startHost>[1]) => {
    const host = startHost(name, processes, { env, onLine: line => NOTEWORTHY.test(line) && console.log(line) })
    hosts.set(name, host)
    return host
  }
  const worker = (name: string) => start(name, [{ label: 'worker', script: WORKER, args: ['--forever'] }])
  const messagesDone = async (ids: number[]) => {
    const rows = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from atlas_inbox where message_id in ${sql.raw(`(${ids.join(',')})`)} and status = 'actioned'`)
    return rows[0]!.n === ids.length
  }
  const seed = async (count: number, subject: string) => {
    const ids: number[] = []
    for (let i = 0; i < count; i++) ids.push(await classifiedMessage(database.db, { intent: 'question', subject: `${subject} ${i}` }))
    return ids
  }
  const spawnHosts = async (ids: number[]) => {
    const rows = await database.db.execute<{ host: string, n: number }>(sql`select host, count(*)::int as n from atlas_spawns where message_id in ${sql.raw(`(${ids.join(',')})`)} and status = 'succeeded' group by host order by host`)
    return Object.fromEntries(rows.map(row => [row.host, row.n]))
  }

  beforeAll(async () => {
    cluster = await startTestCluster('multihost')
    say(`PostgreSQL cluster of its own on 127.0.0.1:${cluster.port}`)
    database = await connectDatabase(cluster.url, { max: 4 })
    base = mkdtempSync(join(tmpdir(), 'multi-host-'))
    // The agent's user (nobody) traverses to its spawn folder.
    chmodSync(base, 0o711)
    env = {
      DATABASE_URL: cluster.url,
      SPAWN_AGENT_BIN: STAND_IN_AGENT,
      SPAWN_ROOT: join(base, 'spawns'),
      SPAWN_LOG_DIR: join(base, 'logs'),
      ATLAS_TMP_DIR: join(base, 'tmp'),
      SPAWN_AGENT_ENV_PASS: 'STAND_IN_*',
      SPAWN_POLL_MS: '200',
      SPAWN_KILL_GRACE_MS: '500',
      SPAWN_LEASE_TTL_MS: '6000',
      SPAWN_HEARTBEAT_MS: '1000',
      SPAWN_HOST_CONCURRENCY: String(HOST_CAP),
      SPAWN_GLOBAL_CONCURRENCY: String(GLOBAL_CAP),
      // Each spawn lasts a few seconds (paced events), so that spawns overlap and a kill lands mid-spawn.
      STAND_IN_VARIANT: 'fast',
      STAND_IN_PACE_MS: '250',
      INTERNAL_TEAM_EMAILS: 'team@studio.example',
    }
    start('hub', [{ label: 'orchestrator', script: ORCHESTRATE, args: ['--cycles', '100000', '--interval-ms', '500'] }])
    worker('w1')
    worker('w2')
    sampler = setInterval(() => {
      samples.push({ at: Date.now(), perHost: runningPerNamespace([...hosts.values()]) })
    }, 150)
  })

  afterAll(async () => {
    if (sampler) clearInterval(sampler)
    for (const host of hosts.values()) {
      try {
        host.kill()
      }
      catch {
        // Already gone.
      }
    }
    await Promise.all([...hosts.values()].map(host => host.exited))
    await database?.close()
    cluster?.stop()
    if (base) rmSync(base, { recursive: true, force: true })
  })

  it('holds the global and per-host caps across the hosts', async () => {
    const from = Date.now()
    const ids = await seed(12, 'Caps')
    await until(() => messagesDone(ids), 'the 12 messages actioned', 240_000)
    const window = samples.filter(sample => sample.at >= from)
    const peakPerHost: Record<string, number> = {}
    let peakTotal = 0
    for (const sample of window) {
      for (const [host, n] of Object.entries(sample.perHost)) peakPerHost[host] = Math.max(peakPerHost[host] ?? 0, n)
      peakTotal = Math.max(peakTotal, Object.values(sample.perHost).reduce((a, b) => a + b, 0))
    }
    const done = await spawnHosts(ids)
    say(`caps: ${window.length} samples; peak running per host ${JSON.stringify(peakPerHost)} (cap ${HOST_CAP}), peak across hosts ${peakTotal} (cap ${GLOBAL_CAP}); spawns per host ${JSON.stringify(done)}`)
    expect(Object.keys(peakPerHost).sort()).toEqual(['w1', 'w2'])
    for (const n of Object.values(peakPerHost)) expect(n).toBeLessThanOrEqual(HOST_CAP)
    expect(peakTotal).toBeLessThanOrEqual(GLOBAL_CAP)
    // The caps were reached, not merely unapproached.
    expect(peakTotal).toBe(GLOBAL_CAP)
    expect(Object.keys(done).sort()).toEqual(['w1', 'w2'])
  })

  it('a worker host lost mid-spawn: its spawn is marked lost and retried on the other host', async () => {
    const ids = await seed(4, 'Lost host')
    const victim = await until(async () => {
      const rows = await database.db.execute<{ id: string, message_id: number, pid: number }>(sql`
        select id, message_id::int, pid from atlas_spawns where host = 'w1' and status = 'running' and agent_pid is not null
          and message_id in ${sql.raw(`(${ids.join(',')})`)} limit 1`)
      return rows[0]
    }, 'a spawn running on w1')
    const w1 = hosts.get('w1')!
    const init = w1.initPid()
    say(`killing host w1 (its init, pid ${init} on this machine) while it runs spawn ${victim.id} of message #${victim.message_id}`)
    w1.kill()
    const gone = await w1.exited
    say(`host w1 gone (unshare exited with ${gone.signal ?? gone.code}); its processes died with its init`)
    await until(() => messagesDone(ids), 'the lost host\'s messages actioned on w2', 240_000)
    const trail = await audits(database.db, victim.message_id)
    const lost = trail.find(a => a.action === 'spawn_failed')
    const retried = trail.filter(a => a.action === 'spawn_started').at(-1)
    say(`message #${victim.message_id}: ${trail.map(a => `${a.action}${(a.details as { host?: string })?.host ? `@${(a.details as { host: string }).host}` : ''}`).join(' → ')}`)
    say(`lost: ${JSON.stringify(lost?.details)}`)
    expect(lost?.details).toMatchObject({ reason: 'worker_lost', spawnId: victim.id, worker: { host: 'w1', pid: victim.pid } })
    expect(retried?.details).toMatchObject({ host: 'w2' })
    expect(await actions(database.db, victim.message_id)).toEqual(['spawn_started', 'spawn_failed', 'spawn_started', 'spawn_completed', 'actioned'])
    const spawns = await database.db.execute<{ status: string, host: string }>(sql`select status, host from atlas_spawns where message_id = ${victim.message_id} order by queued_at`)
    expect(spawns.map(s => `${s.status}@${s.host}`)).toEqual(['lost@w1', 'succeeded@w2'])
  })

  it('survives a PostgreSQL restart mid-load: every process reconnects, spawns complete, no lease held, no event lost', async () => {
    // The lost host comes back (a new namespace, the same name).
    worker('w1')
    const ids = await seed(10, 'Restart')
    await until(async () => {
      const rows = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from atlas_spawns where status = 'running' and agent_pid is not null and message_id in ${sql.raw(`(${ids.join(',')})`)}`)
      return rows[0]!.n >= 2
    }, 'spawns running on both hosts')
    const restartedAt = Date.now()
    cluster.restart()
    say(`PostgreSQL restarted (pg_ctl restart -m fast) in ${Date.now() - restartedAt} ms with spawns running`)
    await until(() => messagesDone(ids), 'every message actioned after the restart', 300_000)
    // Every process is still the one started: none crashed (a crashed one would end its host's init's children).
    for (const host of hosts.values()) {
      if (host.name === 'w1' && host.child.exitCode !== null) continue
      expect(host.child.exitCode, `host ${host.name} still up`).toBeNull()
    }
    const after = await seed(4, 'After restart')
    await until(() => messagesDone(after), 'messages queued and spawned after the restart', 240_000)
    const byHost = await spawnHosts([...ids, ...after])
    // Everything is idle now: a lease taken before this point and still unexpired a time to
    // live later is being heartbeated for nothing: stuck. The idle workers keep polling, and a
    // poll holds a slot for the moment it reads the queue: such a lease is younger than `idleSince`.
    const idleSince = (await database.db.execute<{ at: string }>(sql`select now()::text as at`))[0]!.at
    await new Promise(resolve => setTimeout(resolve, Number(env.SPAWN_LEASE_TTL_MS)))
    const leases = await database.db.execute<{ name: string, host: string, pid: number, expired: boolean, polling: boolean }>(sql`
      select name, host, pid, expires_at < now() as expired, acquired_at >= ${idleSince}::timestamptz as polling from ops_locks where starts_with(name, 'atlas-spawn:')`)
    say(`spawn leases left in ops_locks: ${leases.length === 0 ? 'none' : leases.map(l => `${l.name} (${l.host}:${l.pid}, ${l.expired ? 'expired' : l.polling ? 'held by a poll' : 'HELD'})`).join(', ')}`)
    const [counts] = await database.db.execute<{ spawns: number, lost: number, failed: number, held: number, gaps: number }>(sql`
      select
        (select count(*)::int from atlas_spawns where message_id in ${sql.raw(`(${[...ids, ...after].join(',')})`)}) as spawns,
        (select count(*)::int from atlas_spawns where status = 'lost' and message_id in ${sql.raw(`(${[...ids, ...after].join(',')})`)}) as lost,
        (select count(*)::int from atlas_spawns where status = 'failed' and message_id in ${sql.raw(`(${[...ids, ...after].join(',')})`)}) as failed,
        (select count(*)::int from ops_locks where starts_with(name, 'atlas-spawn:') and expires_at > now() and acquired_at < ${idleSince}::timestamptz) as held,
        (select count(*)::int from atlas_spawns s where s.status = 'succeeded' and (s.event_count = 0 or s.event_count <> (select count(*) from atlas_spawn_events e where e.spawn_id = s.id))) as gaps`)
    say(`after the restart: ${ids.length + after.length} messages actioned by ${JSON.stringify(byHost)}; ${counts!.spawns} spawns (${counts!.lost} lost, ${counts!.failed} failed); spawn leases still held ${counts!.held}; spawns with missing events ${counts!.gaps}`)
    const lines = [...hosts.values()].flatMap(host => host.lines)
    const outage = lines.filter(line => /connect|terminat|shutdown|not stored yet|stored at attempt|could not be read/i.test(line))
    say(`what the processes said of the restart (${outage.length} line(s)):`)
    for (const line of outage.slice(0, 8)) say(`  ${line}`)
    expect(Object.keys(byHost).sort()).toEqual(['w1', 'w2'])
    expect(counts!.failed).toBe(0)
    expect(counts!.held).toBe(0)
    expect(counts!.gaps).toBe(0)
    for (const id of [...ids, ...after]) expect((await actions(database.db, id)).filter(a => a === 'spawn_completed')).toHaveLength(1)
  })
})
