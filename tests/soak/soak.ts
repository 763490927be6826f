// The chaos soak: mail delivered to a loopback Dovecot at a steady rate, the collector (run
// by its automate, cron-like), the spawn orchestrator, two spawn workers and the operator's
// approvals (the hub's decision, through the same core call its route makes) as real
// processes on a PostgreSQL cluster of the soak's own, the stand-in agent for every spawn;
// every few seconds (seeded, reproducible) one of them is SIGKILLed and started again as
// systemd or cron would. At the end the system is left to settle, stopped, and the invariants
// are checked (invariants.ts).
import { mkdirSync, mkdtempSync, chmodSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { connectDatabase } from '#db/connection'
import { STAND_IN_AGENT } from '#layers/atlas/tests/fixtures/spawn/wrapper'
import { startCollectorWorld } from '#layers/atlas/tests/fixtures/collector-world'
import { compose, uniqueId } from '#layers/atlas/tests/fixtures/mail'
import { startTestCluster } from '../helpers/pg-cluster'
import { seededRandom, superviseService, type Service, type ServiceSpec } from './chaos'
import { checkInvariants, liveSpawnMarkers, TERMINAL, type Invariant } from './invariants'

export interface SoakOptions {
  minutes: number
  seed: number
  /** Mails delivered per minute. */
  rate: number
  /** The pause between two kills, drawn uniformly in [min, max] seconds. */
  killEverySec: [number, number]
  /** How long the system may take to settle once mail and kills stop. */
  settleSec: number
  /** Extra environment for every process (a deliberately broken build, say). */
  env?: Record<string, string>
  log: (line: string) => void
}

export interface SoakReport {
  seed: number
  delivered: number
  kills: Array<{ at: number, service: string, pid: number }>
  restarts: Record<string, number>
  settled: boolean
  invariants: Invariant[]
  ok: boolean
  logDir: string
}

const MAILBOX = 'INBOX'

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const random = seededRandom(options.seed)
  const log = options.log
  const cluster = await startTestCluster('soak')
  const world = await startCollectorWorld('soak')
  const base = mkdtempSync(join(tmpdir(), 'synedre-soak-'))
  // The agent's user (nobody) traverses to its spawn folder.
  chmodSync(base, 0o711)
  const logDir = join(base, 'logs')
  mkdirSync(logDir)
  const database = await connectDatabase(cluster.url, { max: 4 })
  const { db } = database
  const env: Record<string, string> = {
    DATABASE_URL: cluster.url,
    ...world.dovecot.env(world.user, MAILBOX),
    ...world.model.env,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    CLAMAV_DATABASE: world.clamdb.dir,
    CLAMD_HOST: '',
    ATLAS_OCR_ENABLED: '0',
    ATLAS_TMP_DIR: world.scratch,
    SPAWN_AGENT_BIN: STAND_IN_AGENT,
    SPAWN_SANDBOX: 'bwrap',
    SPAWN_AGENT_ENV_PASS: 'STAND_IN_*',
    SPAWN_ROOT: join(base, 'spawns'),
    SPAWN_LOG_DIR: join(base, 'spawn-logs'),
    SPAWN_POLL_MS: '300',
    SPAWN_KILL_GRACE_MS: '500',
    SPAWN_LEASE_TTL_MS: '4000',
    SPAWN_HEARTBEAT_MS: '2000',
    SPAWN_HOST_CONCURRENCY: '2',
    SPAWN_GLOBAL_CONCURRENCY: '3',
    STAND_IN_VARIANT: 'fast',
    INTERNAL_TEAM_EMAILS: 'team@studio.example',
    ...options.env,
  }
  log(`[soak] seed ${options.seed}, ${options.minutes} min, ${options.rate} mails/min, a kill every ${options.killEverySec[0]}–${options.killEverySec[1]} s; PostgreSQL on 127.0.0.1:${cluster.port}, Dovecot on 127.0.0.1:${world.dovecot.port}; logs in ${logDir}`)

  const specs: ServiceSpec[] = [
    // The collector as cron runs it: one cycle through the supervision wrapper, again a moment later.
    { name: 'collector', script: 'automates/run.ts', args: ['atlas-collect'], restartDelayMs: 2000 },
    { name: 'orchestrator', script: 'layers/atlas/tests/fixtures/spawn/orchestrate.ts', args: ['--cycles', '1000000', '--interval-ms', '1000'], restartDelayMs: 1000 },
    { name: 'worker-1', script: 'automates/atlas-spawn-worker.ts', args: ['--forever'], restartDelayMs: 1000 },
    // The second worker's agent ends in error: failed spawns, each recording its scar (a lesson).
    { name: 'worker-2', script: 'automates/atlas-spawn-worker.ts', args: ['--forever'], env: { STAND_IN_VARIANT: 'error-result' }, restartDelayMs: 1000 },
    { name: 'hub-approvals', script: 'tests/soak/approver.ts', args: ['--interval-ms', '1000'], restartDelayMs: 1000 },
  ]
  const services: Service[] = specs.map(spec => superviseService(spec, env, join(logDir, `${spec.name}.log`)))
  const delivered: string[] = []
  const kills: SoakReport['kills'] = []
  const concurrentSpawnsSeen: string[] = []
  const started = Date.now()
  const endAt = started + options.minutes * 60_000
  let deliveryTimer: NodeJS.Timeout | undefined
  let sampler: NodeJS.Timeout | undefined
  let report: SoakReport | undefined
  try {
    // Steady delivery: one mail every 60/rate seconds.
    const deliver = async () => {
      const id = uniqueId('soak')
      delivered.push(id)
      await world.dovecot.append(world.user, MAILBOX, [await compose({ messageId: id, subject: `Soak ${delivered.length}`, text: `Bonjour, demande ${delivered.length}.` })])
    }
    const deliveries: Array<Promise<void>> = []
    deliveryTimer = setInterval(() => {
      deliveries.push(deliver().catch(error => log(`[soak] delivery failed: ${(error as Error).message}`)))
    }, Math.round(60_000 / options.rate))
    // Each second: no message may have two spawns' processes alive at once.
    sampler = setInterval(() => void sampleConcurrency(db, concurrentSpawnsSeen).catch(() => {}), 1000)

    while (Date.now() < endAt) {
      const pause = (options.killEverySec[0] + random() * (options.killEverySec[1] - options.killEverySec[0])) * 1000
      await sleep(Math.min(pause, Math.max(0, endAt - Date.now())))
      if (Date.now() >= endAt) break
      // The victim is drawn among the services; one between two runs (the collector) is skipped to the next alive.
      const order = services.map((_, i) => (Math.floor(random() * services.length) + i) % services.length)
      const victim = order.map(i => services[i]!).find(service => service.current()?.pid !== undefined)
      const child = victim?.current()
      if (!victim || !child?.pid) continue
      child.kill('SIGKILL')
      kills.push({ at: Math.round((Date.now() - started) / 1000), service: victim.name, pid: child.pid })
      log(`[soak] t+${kills.at(-1)!.at}s kill #${kills.length}: ${victim.name} (pid ${child.pid})`)
    }
    clearInterval(deliveryTimer)
    await Promise.all(deliveries)
    log(`[soak] ${delivered.length} mails delivered, ${kills.length} kills; settling (up to ${options.settleSec} s)`)
    const settled = await settle(db, delivered.length, options.settleSec * 1000)
    clearInterval(sampler)
    await Promise.all(services.map(service => service.stop()))
    // The agents of a worker stopped with SIGTERM are stopped by it; give the last ones their grace.
    await sleep(1500)
    const invariants = await checkInvariants(db, { delivered, concurrentSpawnsSeen })
    report = {
      seed: options.seed,
      delivered: delivered.length,
      kills,
      restarts: Object.fromEntries(services.map(service => [service.name, service.starts() - 1])),
      settled,
      invariants,
      ok: invariants.every(invariant => invariant.ok),
      logDir,
    }
    return report
  }
  finally {
    clearInterval(deliveryTimer)
    clearInterval(sampler)
    await Promise.all(services.map(service => service.stop()))
    await database.close()
    await world.close()
    cluster.stop()
    // The logs are kept when something failed (or a run stopped halfway), for the post-mortem.
    if (report?.ok) rmSync(base, { recursive: true, force: true })
  }
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

async function sampleConcurrency(db: Awaited<ReturnType<typeof connectDatabase>>['db'], seen: string[]): Promise<void> {
  const live = [...liveSpawnMarkers().keys()]
  if (live.length < 2) return
  const rows = await db.execute<{ message_id: number, ids: string[] }>(sql`
    select message_id::int, array_agg(id::text) as ids from atlas_spawns where id::text in ${sql.raw(`(${live.map(id => `'${id.replace(/[^0-9a-f-]/g, '')}'`).join(',')})`)}
    group by message_id having count(*) > 1`)
  for (const row of rows) seen.push(`message #${row.message_id}: spawns ${row.ids.join(' and ')} alive at once`)
}

/** Waits until every delivered mail is stored and every message is terminal or waiting on a person. */
async function settle(db: Awaited<ReturnType<typeof connectDatabase>>['db'], delivered: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const [row] = await db.execute<{ stored: number, open: number }>(sql`
      select (select count(*)::int from atlas_messages) as stored,
        (select count(*)::int from atlas_inbox where not (status = any(${`{${[...TERMINAL, 'awaiting_approval'].join(',')}}`}::text[]))) as open`)
    if (row!.stored >= delivered && row!.open === 0) return true
    await sleep(1000)
  }
  return false
}
