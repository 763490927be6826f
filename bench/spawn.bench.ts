// The spawn engine: how fast a chatty agent's events become rows (stand-in agent → node-pty
// wrapper → JSONL → the event log, through the view), and how long from a job being claimed
// by a worker to the agent process starting (the wrapper's node_pty_spawn), with the sandbox
// (srt, the default: the figure; bwrap) and without (none), side by side. Measured on the
// embedded default (the figure) and on native PostgreSQL (in the context).
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '#db/connection'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { createMailer } from '#layers/atlas/core/mail/mailer'
import { readSpawnConfig, type SandboxMode } from '#layers/spawn/core/config'
import { createEventSink } from '#layers/spawn/core/events'
import { runOrchestratorCycle } from '#layers/spawn/core/orchestrator'
import { openSpawnQueue } from '#layers/spawn/core/queue'
import { runAgent, spawnPaths } from '#layers/spawn/core/run-agent'
import { runSpawnWorker } from '#layers/spawn/core/worker'
import { classifiedMessage } from '#layers/spawn/tests/fixtures/seed'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { median, sized, type BenchFigure } from './lib'
import { spawnPorts } from '#layers/hub/core/spawn-ports'

const STAND_IN = fileURLToPath(new URL('../layers/spawn/tests/fixtures/stand-in-agent.mjs', import.meta.url))
// BENCH_SIZE=tiny (bench/lib.ts): a 1 MB flood, one claim per sandbox.
const FLOOD_MB = sized(8, 1)
const CLAIMS = sized(3, 1)

const SANDBOXES: SandboxMode[] = ['srt', 'bwrap', 'none']

interface Measured { eventsPerS: number, events: number, claims: Record<SandboxMode, number[]> }

async function measure(database: Database, dir: string): Promise<Measured> {
  const { db } = database
  mkdirSync(dir, { recursive: true })
  // The agent's user (nobody, when the bench runs as root) reaches its folder under here.
  chmodSync(dir, 0o711)
  const workDir = join(dir, 'work')
  const env = {
    ...process.env, DATABASE_URL: database.url, SPAWN_AGENT_BIN: STAND_IN, SPAWN_ROOT: join(dir, 'spawns'), SPAWN_LOG_DIR: join(dir, 'logs'), SPAWN_AGENT_ENV_PASS: 'STAND_IN_*',
    ATLAS_TMP_DIR: join(dir, 'tmp'), SPAWN_POLL_MS: '50', SPAWN_KILL_GRACE_MS: '300', STAND_IN_LINGER_MS: '60000', SPAWN_RECENT_WINDOW_MIN: '0',
  }
  mkdirSync(workDir, { recursive: true })
  const config = readSpawnConfig(env)

  // 1. Event persistence throughput.
  const messageId = await classifiedMessage(db, { intent: 'run', status: 'spawning' })
  const [spawn] = await db.insert(atlasSpawns).values({ messageId, status: 'running', queuedBy: 'bench' }).returning()
  const paths = spawnPaths(config.tmpDir, spawn!.id)
  const sink = createEventSink(db, { spawnId: spawn!.id, messageId })
  let first = 0
  const started = performance.now()
  const outcome = await runAgent({
    spawnId: spawn!.id, prompt: 'bench', systemPrompt: 'bench', resultFile: paths.resultFile, workDir, spawnDir: paths.spawnDir,
    logPath: join(dir, 'logs', 'bench.jsonl'), model: 'sonnet', permissionMode: 'acceptEdits', agentBin: STAND_IN, timeoutMs: 300_000, killGraceMs: 300,
    env: { ...env, STAND_IN_VARIANT: 'flood', STAND_IN_FLOOD_MB: String(FLOOD_MB) }, sink,
    onAgentStarted: () => {
      first = performance.now()
    },
  })
  const seconds = (performance.now() - (first || started)) / 1000
  const events = outcome.events

  // 2. Claim → agent start, through the real queue and worker.
  const queue = await openSpawnQueue({ connectionString: database.url })
  const mail = createMailer({ config: { team: ['team@bench.example'], from: 'Atlas <atlas@bench.example>' }, db, transport: { sendMail: async () => ({ messageId: 'x' }) } })
  const claims = { srt: [], bwrap: [], none: [] } as Record<SandboxMode, number[]>
  try {
    for (let i = 0; i < CLAIMS; i++) {
      for (const sandbox of SANDBOXES) {
        // `none` is refused as root by the configuration; the bench sets it directly, to compare.
        const withSandbox = { ...config, sandbox }
        await classifiedMessage(db, { intent: 'question' })
        await runOrchestratorCycle({ ...spawnPorts, db, queue, config: withSandbox, actor: 'bench', host: hostname(), pid: process.pid, log: () => {} })
        await runSpawnWorker({
          ...spawnPorts,
          db, queue, config: withSandbox, env: { ...env, STAND_IN_VARIANT: 'fast' }, mail, host: hostname(), pid: process.pid, actor: 'bench', log: () => {},
          onTiming: timing => void claims[sandbox].push(timing.agentStartedAt - timing.claimedAt),
        }, { mode: 'drain' })
      }
    }
  }
  finally {
    mail.close()
    await queue.stop()
  }
  return { eventsPerS: events / seconds, events, claims }
}

export default async function (): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'synedre-bench-spawn-'))
  const embedded = await embeddedBenchDatabase('spawn', { max: 4 })
  const native = await nativeBenchDatabase('spawn', { max: 4 })
  try {
    const sides = { embedded: await measure(embedded, join(dir, 'embedded')), native: await measure(native, join(dir, 'native')) }
    const context = {
      agent: 'stand-in agent (real stream-JSON protocol) in node-pty via the wrapper', flood_mb: FLOOD_MB, events: sides.embedded.events,
      figure_side: 'embedded (the single-host default)',
    }
    return [
      {
        name: 'spawn.events_per_s', value: Math.round(sides.embedded.eventsPerS), unit: 'events/s', lowerIsBetter: false,
        context: { ...context, what: 'events from the agent process start to their rows in atlas_spawn_events (batched INSERTs through the view)', native_events_per_s: Math.round(sides.native.eventsPerS) },
      },
      {
        name: 'spawn.claim_to_start_ms', value: Math.round(median(sides.embedded.claims.srt)), unit: 'ms', lowerIsBetter: true,
        context: {
          ...context,
          what: `median over ${CLAIMS} jobs per sandbox: pg-boss fetch returned → node_pty_spawn read by the worker (message lease, claim transaction, the spawn's checkout and folders, the sandbox policy, prompt files, wrapper start under tsx, pty spawn of the sandbox launcher); figure: srt`,
          ...Object.fromEntries(SANDBOXES.map(sandbox => [`${sandbox}_ms`, Math.round(median(sides.embedded.claims[sandbox]))])),
          ...Object.fromEntries(SANDBOXES.map(sandbox => [`${sandbox}_samples_ms`, sides.embedded.claims[sandbox].map(Math.round)])),
          ...Object.fromEntries(SANDBOXES.map(sandbox => [`native_${sandbox}_ms`, Math.round(median(sides.native.claims[sandbox]))])),
        },
      },
    ]
  }
  finally {
    await embedded.close()
    await native.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
