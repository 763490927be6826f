// The soak's moving parts: a seeded PRNG (a run is reproducible from its seed), and services
// (real processes) restarted when they end, as systemd (Restart=always) or cron would.
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

export interface ServiceSpec {
  name: string
  script: string
  args?: string[]
  env?: Record<string, string>
  /** Pause before starting it again once it ended (a cron job's next run, systemd's RestartSec). */
  restartDelayMs: number
}

export interface Service {
  name: string
  /** The live process, or null between runs. */
  current: () => ChildProcess | null
  starts: () => number
  /** Ends of a run by SIGKILL, and every other end with its exit code. */
  ends: Array<{ code: number | null, signal: NodeJS.Signals | null }>
  stop: () => Promise<void>
}

/** Starts `node --import tsx <script>` and starts it again each time it ends, until stop(). */
export function superviseService(spec: ServiceSpec, env: Record<string, string>, logFile: string): Service {
  const log: WriteStream = createWriteStream(logFile, { flags: 'a' })
  let child: ChildProcess | null = null
  let starts = 0
  let stopping = false
  let timer: NodeJS.Timeout | null = null
  const ends: Service['ends'] = []
  let ended: Promise<void> = Promise.resolve()
  const start = () => {
    if (stopping) return
    starts += 1
    const run = spawn(process.execPath, ['--import', 'tsx', spec.script, ...(spec.args ?? [])], {
      cwd: ROOT,
      env: { ...process.env, ...env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = run
    log.write(`--- ${new Date().toISOString()} start #${starts} pid ${run.pid}\n`)
    run.stdout!.pipe(log, { end: false })
    run.stderr!.pipe(log, { end: false })
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
    current: () => child,
    starts: () => starts,
    ends,
    stop: async () => {
      stopping = true
      if (timer) clearTimeout(timer)
      const running = child
      if (running) {
        running.kill('SIGTERM')
        const force = setTimeout(() => running.kill('SIGKILL'), 15_000)
        await ended
        clearTimeout(force)
      }
      await new Promise(resolve => log.end(resolve))
    },
  }
}
