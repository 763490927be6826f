// Scaling out the spawn engine: the throughput of short stand-in spawns with two worker hosts
// against one, in one run, on native PostgreSQL (the several-host setup). Each host's worker
// runs under its own host name, so it holds its own per-host slots (SPAWN_HOST_CONCURRENCY)
// while the global slots (SPAWN_GLOBAL_CONCURRENCY, set to allow both hosts) are shared. The
// stand-in agent paces its events, so a spawn mostly waits as a real agent does (on the model)
// and the per-host cap, not this machine's cores, bounds a host.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import type { Database } from '#db/connection'
import { createMailer } from '#layers/atlas/core/mail/mailer'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { queueMessage } from '#layers/spawn/core/orchestrator'
import { openSpawnQueue, type SpawnQueue } from '#layers/spawn/core/queue'
import { runSpawnWorker } from '#layers/spawn/core/worker'
import { classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { nativeBenchDatabase } from './databases'
import { sized, type BenchFigure } from './lib'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

const STAND_IN = fileURLToPath(new URL('../layers/spawn/tests/fixtures/stand-in-agent.mjs', import.meta.url))
// BENCH_SIZE=tiny (bench/lib.ts): 4 spawns a side (still two hosts' worth of slots), events paced 20 ms.
const SPAWNS = sized(12, 4)
const PACE_MS = sized(150, 20)
const HOST_CAP = 2

async function spawnsPerMinute(
  database: Database,
  queue: SpawnQueue,
  dir: string,
  hosts: string[],
): Promise<{ perMin: number, seconds: number, byHost: Record<string, number> }> {
  const { db } = database
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    SPAWN_AGENT_BIN: STAND_IN,
    SPAWN_ROOT: join(dir, 'spawns'),
    SPAWN_LOG_DIR: join(dir, 'logs'),
    SPAWN_AGENT_ENV_PASS: 'STAND_IN_*',
    ATLAS_TMP_DIR: join(dir, 'tmp'),
    SPAWN_POLL_MS: '50',
    SPAWN_KILL_GRACE_MS: '300',
    SPAWN_SANDBOX: 'bwrap',
    SPAWN_RECENT_WINDOW_MIN: '0',
    SPAWN_HOST_CONCURRENCY: String(HOST_CAP),
    SPAWN_GLOBAL_CONCURRENCY: String(HOST_CAP * 2),
    STAND_IN_VARIANT: 'fast',
    STAND_IN_PACE_MS: String(PACE_MS),
  }
  const config = readSpawnConfig(env)
  const mail = createMailer({
    config: { team: ['team@bench.example'], from: 'Atlas <atlas@bench.example>' },
    db,
    transport: { sendMail: async () => ({ messageId: 'x' }) },
  })
  const ids: number[] = []
  for (let i = 0; i < SPAWNS; i++) ids.push(await classifiedMessage(db, { intent: 'question', subject: `Scale ${hosts.length} ${i}` }))
  // Every job queued up front: the workers, not the orchestrator's pace, set the throughput.
  for (const id of ids)
    await queueMessage({ ...spawnPorts, db, queue, config, actor: 'bench', host: hostname(), pid: process.pid, log: () => {} }, id)
  const started = performance.now()
  try {
    await Promise.all(
      hosts.map(host =>
        runSpawnWorker(
          { ...spawnPorts, db, queue, config, env, mail, host, pid: process.pid, actor: 'bench', log: () => {} },
          { mode: 'drain' },
        ),
      ),
    )
  }
  finally {
    mail.close()
  }
  const seconds = (performance.now() - started) / 1000
  const rows = await db.execute<{ host: string, n: number }>(
    sql`select host, count(*)::int as n from atlas_spawns where message_id in ${sql.raw(`(${ids.join(',')})`)} and status = 'succeeded' group by host`,
  )
  const done = rows.reduce((sum, row) => sum + row.n, 0)
  if (done !== SPAWNS) throw new Error(`${done} of ${SPAWNS} spawns succeeded with ${hosts.length} host(s)`)
  return { perMin: (SPAWNS / seconds) * 60, seconds, byHost: Object.fromEntries(rows.map(row => [row.host, row.n])) }
}

export default async function (): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'synedre-bench-scale-'))
  // The agent's user (nobody, when the bench runs as root) reaches its folder under here.
  chmodSync(dir, 0o711)
  const database = await nativeBenchDatabase('scale', { max: 8 })
  const queue = await openSpawnQueue({ connectionString: database.url })
  try {
    mkdirSync(join(dir, 'one'))
    mkdirSync(join(dir, 'two'))
    const one = await spawnsPerMinute(database, queue, join(dir, 'one'), ['bench-host-a'])
    const two = await spawnsPerMinute(database, queue, join(dir, 'two'), ['bench-host-a', 'bench-host-b'])
    return [{
      name: 'scale.spawns_per_min_2hosts_vs_1host',
      value: Math.round((two.perMin / one.perMin) * 100) / 100,
      unit: 'ratio',
      lowerIsBetter: false,
      context: {
        what: `${SPAWNS} short stand-in spawns (paced events, bwrap sandbox) drained by one worker host, then by two (per-host cap ${HOST_CAP}, global cap ${HOST_CAP * 2}), native PostgreSQL; goal ≥ 1.8`,
        one_host_spawns_per_min: Math.round(one.perMin * 10) / 10,
        two_hosts_spawns_per_min: Math.round(two.perMin * 10) / 10,
        one_host_seconds: Math.round(one.seconds * 10) / 10,
        two_hosts_seconds: Math.round(two.seconds * 10) / 10,
        two_hosts_split: two.byHost,
      },
    }]
  }
  finally {
    await queue.stop()
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
