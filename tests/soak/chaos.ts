// The soak's moving parts: a seeded PRNG (a run is reproducible from its seed), and services
// (real processes, each the leader of its own process group) restarted when they end, as
// systemd (Restart=always) or cron would. A kill is SIGKILL to the whole group.
import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, type WriteStream } from 'node:fs'
import { ROOT } from '../helpers/processes'

/** mulberry32: small, fast, good enough to pick victims and intervals reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** What a kill takes down: an automate's process, the database, or the hub's HTTP server. */
export type VictimKind = 'process' | 'database' | 'hub'

/** Anything the soak may kill: the group to kill now (null between two runs), and how to stop it for good. */
export interface Victim {
  name: string
  kind: VictimKind
  pgid: () => number | null
  /** Called right after its group was killed (a victim that is not our child learns it here). */
  killed?: () => void
  starts: () => number
  stop: () => Promise<void>
}

export interface ServiceSpec {
  name: string
  kind?: VictimKind
  script: string
  args?: string[]
  env?: Record<string, string>
  /** Run with plain node (a built file), not through tsx. */
  plainNode?: boolean
  /** Pause before starting it again once it ended (a cron job's next run, systemd's RestartSec). */
  restartDelayMs: number
  /** A line of its output that means it hangs on purpose (a test hook's pause): the watchdog is told. */
  hangsWhen?: RegExp
}

export interface Service extends Victim {
  /** Called when a run printed `hangsWhen` (a watchdog kills it, as systemd's WatchdogSec would). */
  onHang: (watchdog: () => void) => void
  /** The live process, or null between runs. */
  current: () => ChildProcess | null
  /** Ends of a run by SIGKILL, and every other end with its exit code. */
  ends: Array<{ code: number | null, signal: NodeJS.Signals | null }>
}

/** Starts `node [--import tsx] <script>` as a group leader and starts it again each time it ends, until stop(). */
export function superviseService(spec: ServiceSpec, env: Record<string, string>, logFile: string): Service {
  const log: WriteStream = createWriteStream(logFile, { flags: 'a' })
  let child: ChildProcess | null = null
  let starts = 0
  let stopping = false
  let timer: NodeJS.Timeout | null = null
  const ends: Service['ends'] = []
  let ended: Promise<void> = Promise.resolve()
  let watchdog: (() => void) | null = null
  const start = () => {
    if (stopping) return
    starts += 1
    const run = spawn(process.execPath, [...(spec.plainNode ? [] : ['--import', 'tsx']), spec.script, ...(spec.args ?? [])], {
      cwd: ROOT,
      env: { ...process.env, ...env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a kill takes its children with it (process.kill(-pid)).
      detached: true,
    })
    child = run
    log.write(`--- ${new Date().toISOString()} start #${starts} pid ${run.pid}\n`)
    run.stdout!.pipe(log, { end: false })
    run.stderr!.pipe(log, { end: false })
    if (spec.hangsWhen) {
      const pattern = spec.hangsWhen
      run.stdout!.on('data', (chunk: Buffer) => {
        if (pattern.test(chunk.toString()) && child === run) watchdog?.()
      })
    }
    ended = new Promise(resolve => run.once('exit', (code, signal) => {
      ends.push({ code, signal })
      log.write(`--- ${new Date().toISOString()} pid ${run.pid} ended (${signal ?? code})\n`)
      if (child === run) child = null
      if (!stopping) timer = setTimeout(start, spec.restartDelayMs)
      resolve()
    }))
  }
  start()
  return {
    name: spec.name,
    kind: spec.kind ?? 'process',
    current: () => child,
    pgid: () => child?.pid ?? null,
    onHang: (callback) => {
      watchdog = callback
    },
    starts: () => starts,
    ends,
    stop: async () => {
      stopping = true
      if (timer) clearTimeout(timer)
      const running = child
      if (running) {
        // SIGTERM to the leader (a worker stops its agents itself), the whole group killed if it lingers.
        running.kill('SIGTERM')
        const force = setTimeout(() => {
          try {
            process.kill(-running.pid!, 'SIGKILL')
          }
          catch (error) {
            log.write(`--- killing the group of pid ${running.pid} after 15 s failed: ${(error as Error).message}\n`)
          }
        }, 15_000)
        await ended
        clearTimeout(force)
      }
      await new Promise(resolve => log.end(resolve))
    },
  }
}
