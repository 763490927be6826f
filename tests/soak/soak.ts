// The chaos soak: mail delivered to a loopback Dovecot at a steady rate, the collector (run
// by its automate, cron-like), the spawn orchestrator, two spawn workers, the operator's
// approvals (through the hub's HTTP server when it is built), the hub's server itself and the
// database (the embedded PGlite behind its socket server, or a native PostgreSQL 15) as real
// processes, the stand-in agent for every spawn. Every few seconds (seeded, reproducible) one
// of them is SIGKILLed with its whole process group and started again, as systemd or cron
// would. Then the injection stops and the system settles (settle.ts), every process still up;
// then it is stopped and the invariants are checked (invariants.ts). A run that did not
// settle fails, whatever the invariants say.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { connectDatabase } from '#db/connection'
import { readAtlasConfig } from '#layers/atlas/core/config'
import { startCollectorWorld } from '#layers/atlas/tests/fixtures/collector-world'
import { compose, uniqueId } from '#layers/atlas/tests/fixtures/mail'
import { json } from '#layers/atlas/tests/fakes/model'
import { STAND_IN_AGENT } from '#layers/spawn/tests/fixtures/wrapper'
import { createUser } from '#server/core/users'
import { seededRandom, superviseService, type Service, type ServiceSpec, type Victim } from './chaos'
import { startSoakDatabase, waitForDatabase, type SoakDatabaseKind } from './database'
import { startSoakHub, waitForHub } from './hub-server'
import { checkInvariants, liveSpawnMarkers, type Invariant, type KillRecord } from './invariants'
import { killVictim, pickVictim } from './kills'
import { readMailbox } from './mailbox'
import { settle } from './settle'

export interface SoakOptions {
  minutes: number
  seed: number
  /** Mails delivered per minute. */
  rate: number
  /** The pause between two kills, drawn uniformly in [min, max] seconds. */
  killEverySec: [number, number]
  /** How long the system may take to settle once mail and kills stop. */
  settleSec: number
  /** The database to run (and kill): drawn from the seed when not given. */
  database?: SoakDatabaseKind
  /** Kill only victims of these names (e.g. collector, database); every one when not given. */
  victims?: string[]
  /** What the scripted model answers for every mail (default `question`, a spawn intent; `noise` spawns nothing). */
  intent?: string
  /** Keep the processes' logs even when everything held (they are kept on a failure anyway). */
  keepLogs?: boolean
  /** Extra environment for every process (a deliberately broken build, say). */
  env?: Record<string, string>
  log: (line: string) => void
}

export interface SoakReport {
  seed: number
  database: SoakDatabaseKind
  /** Whether the hub's HTTP server ran (it needs a build in .output). */
  hub: boolean
  delivered: number
  kills: KillRecord[]
  restarts: Record<string, number>
  settled: boolean
  settling: { waitedSec: number, last: string }
  invariants: Invariant[]
  /** Every invariant holds and the system settled. */
  ok: boolean
  logDir: string
}

const MAILBOX = 'INBOX'
const OPERATOR = { email: 'soak-operator@studio.example', password: 'soak-operator-password-123' }
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const random = seededRandom(options.seed)
  const log = options.log
  const databaseKind: SoakDatabaseKind = options.database ?? (random() < 0.5 ? 'embedded' : 'native')
  const base = mkdtempSync(join(tmpdir(), 'synedre-soak-'))
  // The agent's user (nobody) traverses to its spawn folder.
  chmodSync(base, 0o711)
  const logDir = join(base, 'logs')
  mkdirSync(logDir)
  const world = await startCollectorWorld('soak')
  world.model.byDefault(() => json(options.intent ?? 'question', 0.9))
  const services: Service[] = []
  let soakDb: Awaited<ReturnType<typeof startSoakDatabase>> | undefined
  let database: Awaited<ReturnType<typeof connectDatabase>> | undefined
  let hub: Awaited<ReturnType<typeof startSoakHub>> = null
  let deliveryTimer: NodeJS.Timeout | undefined
  let sampler: NodeJS.Timeout | undefined
  let report: SoakReport | undefined
  try {
    soakDb = await startSoakDatabase(databaseKind, base, logDir, log)
    database = await connectDatabase(soakDb.url, { max: 4 })
    const { db } = database
    const env: Record<string, string> = {
      DATABASE_URL: soakDb.url,
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
      SOAK_OPERATOR_EMAIL: OPERATOR.email,
      SOAK_OPERATOR_PASSWORD: OPERATOR.password,
      ...options.env,
    }
    const maxAttempts = readAtlasConfig(env).classifier.maxAttempts
    await createUser(db, { email: OPERATOR.email, role: 'operator', password: OPERATOR.password }, 'soak')
    hub = await startSoakHub(soakDb.url, env, logDir)
    log(`[soak] seed ${options.seed}, ${options.minutes} min, ${options.rate} mails/min, a kill every ${options.killEverySec[0]}–${options.killEverySec[1]} s; database: ${soakDb.where}; Dovecot on 127.0.0.1:${world.dovecot.port}; ${hub ? `hub server at ${hub.url}${hub.stale ? ' (its build is older than the sources)' : ''}` : 'no hub build in .output: the hub server is not run (approvals through the core call)'}; logs in ${logDir}`)

    const specs: ServiceSpec[] = [
      // The collector as cron runs it: one cycle through the supervision wrapper, again a moment later.
      { name: 'collector', script: 'automates/run.ts', args: ['atlas-collect'], restartDelayMs: 2000, hangsWhen: /waiting to be killed/ },
      { name: 'orchestrator', script: 'layers/spawn/tests/fixtures/orchestrate.ts', args: ['--cycles', '1000000', '--interval-ms', '1000'], restartDelayMs: 1000 },
      { name: 'worker-1', script: 'automates/atlas-spawn-worker.ts', args: ['--forever'], restartDelayMs: 1000 },
      // The second worker's agent ends in error: failed spawns, each recording its scar (a lesson).
      { name: 'worker-2', script: 'automates/atlas-spawn-worker.ts', args: ['--forever'], env: { STAND_IN_VARIANT: 'error-result' }, restartDelayMs: 1000 },
      { name: 'approvals', script: 'tests/soak/approver.ts', args: ['--interval-ms', '1000', ...(hub ? ['--hub-url', hub.url] : [])], restartDelayMs: 1000 },
    ]
    services.push(...specs.map(spec => superviseService(spec, env, join(logDir, `${spec.name}.log`))))
    const victims: Victim[] = [soakDb.victim, ...(hub ? [hub.service] : []), ...services].filter(
      victim => !options.victims || options.victims.includes(victim.name),
    )
    const delivered: string[] = []
    const kills: KillRecord[] = []
    const watches: Array<Promise<void>> = []
    const concurrentSpawnsSeen: string[] = []
    let samplesFailed = 0
    const started = Date.now()
    const endAt = started + options.minutes * 60_000

    // Steady delivery: one mail every 60/rate seconds.
    const deliver = async () => {
      const id = uniqueId('soak')
      await world.dovecot.append(world.user, MAILBOX, [await compose({ messageId: id, subject: `Soak ${delivered.length + 1}`, text: `Bonjour, demande ${delivered.length + 1}.` })])
      // Counted once Dovecot took it: a failed append is not a mail the system could lose.
      delivered.push(id)
    }
    const deliveries: Array<Promise<void>> = []
    deliveryTimer = setInterval(() => {
      deliveries.push(deliver().catch(error => log(`[soak] delivery failed: ${(error as Error).message}`)))
    }, Math.round(60_000 / options.rate))
    // Each second: no message may have two spawns' processes alive at once (a sample fails while the database is down).
    sampler = setInterval(() => void sampleConcurrency(db, concurrentSpawnsSeen).catch(() => {
      samplesFailed += 1
    }), 1000)

    // A collector paused by the test hook (ATLAS_COLLECT_PAUSE_AT) is killed there at once, by the
    // watchdog a hung process meets in production; it keeps watching while the system settles.
    for (const service of services) {
      service.onHang(() => {
        const killed = killVictim(service, Math.round((Date.now() - started) / 1000))
        if (!killed) return
        kills.push(killed.record)
        watches.push(killed.watched)
        log(`[soak] t+${killed.record.at}s watchdog kill #${kills.length}: ${service.name} said it waits to be killed (group ${killed.record.pid})`)
      })
    }
    const meanPause = (options.killEverySec[0] + options.killEverySec[1]) / 2
    // No victim drawn (what the last kills must cover is not running now): drawn again soon.
    let drawAgainSoon = false
    while (Date.now() < endAt) {
      const pause = (options.killEverySec[0] + random() * (options.killEverySec[1] - options.killEverySec[0])) * 1000
      await sleep(Math.min(drawAgainSoon ? 500 : pause, Math.max(0, endAt - Date.now())))
      if (Date.now() >= endAt) break
      const killsLeft = Math.floor((endAt - Date.now()) / 1000 / meanPause) + 1
      const victim = pickVictim(victims, random, kills, killsLeft)
      drawAgainSoon = victim === null
      const killed = victim && killVictim(victim, Math.round((Date.now() - started) / 1000))
      if (!killed) continue
      kills.push(killed.record)
      watches.push(killed.watched)
      const { record } = killed
      log(`[soak] t+${record.at}s kill #${kills.length}: ${record.service} (${record.kind}), group ${record.pid}: ${record.members.length} process(es) [${record.members.map(p => p.command).join(', ')}]`)
    }
    clearInterval(deliveryTimer)
    await Promise.all(deliveries)
    log(`[soak] ${delivered.length} mails delivered, ${kills.length} kills; settling, every process up (up to ${options.settleSec} s)`)
    // The last kill may have been the database or the hub: settling starts once they are back.
    await waitForDatabase(soakDb.url, 120_000)
    if (hub) await waitForHub(hub.url, 120_000)
    const settling = await settle(
      { db, maxAttempts, mailbox: () => readMailbox(world.dovecot, world.user, MAILBOX), log },
      options.settleSec * 1000,
    )
    log(`[soak] ${settling.settled ? `settled in ${settling.waitedSec} s` : `NOT settled after ${settling.waitedSec} s`}: ${settling.last}`)
    clearInterval(sampler)
    if (samplesFailed > 0) log(`[soak] ${samplesFailed} concurrency samples failed (the database was down)`)
    await Promise.all([...services, ...(hub ? [hub.service] : [])].map(service => service.stop()))
    // The agents of a worker stopped with SIGTERM are stopped by it; give the last ones their grace.
    await sleep(1500)
    await Promise.all(watches)
    const mailbox = await readMailbox(world.dovecot, world.user, MAILBOX)
    const invariants = await checkInvariants(db, { delivered, seenInMailbox: mailbox.seen, concurrentSpawnsSeen, kills, maxAttempts })
    report = {
      seed: options.seed,
      database: databaseKind,
      hub: hub !== null,
      delivered: delivered.length,
      kills,
      restarts: Object.fromEntries(
        [soakDb.victim, ...(hub ? [hub.service] : []), ...services].map(victim => [victim.name, victim.starts() - 1]),
      ),
      settled: settling.settled,
      settling: { waitedSec: settling.waitedSec, last: settling.last },
      invariants,
      ok: settling.settled && invariants.every(invariant => invariant.ok),
      logDir,
    }
    return report
  }
  finally {
    clearInterval(deliveryTimer)
    clearInterval(sampler)
    await Promise.all([...services, ...(hub ? [hub.service] : [])].map(service => service.stop()))
    await database?.close()
    await soakDb?.close()
    await world.close()
    // The logs are kept when something failed (or a run stopped halfway), for the post-mortem.
    if (report?.ok && !options.keepLogs) rmSync(base, { recursive: true, force: true })
  }
}

async function sampleConcurrency(db: Awaited<ReturnType<typeof connectDatabase>>['db'], seen: string[]): Promise<void> {
  const live = [...liveSpawnMarkers().keys()]
  if (live.length < 2) return
  const rows = await db.execute<{ message_id: number, ids: string[] }>(sql`
    select message_id::int, array_agg(id::text) as ids from atlas_spawns where id::text in ${sql.raw(`(${live.map(id => `'${id.replace(/[^0-9a-f-]/g, '')}'`).join(',')})`)}
    group by message_id having count(*) > 1`)
  for (const row of rows) seen.push(`message #${row.message_id}: spawns ${row.ids.join(' and ')} alive at once`)
}
