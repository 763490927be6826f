// Stopping a spawn's processes for good: its process group first, then any descendant that
// left the group (setsid, double fork), found by the spawn marker every descendant inherits
// in its environment and by walking the parent links in /proc. TERM, then KILL after a grace.
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { isProcessAlive } from '#db/process'

/** The environment variable every process of a spawn carries (set by the wrapper). */
export const SPAWN_MARKER = 'SYNEDRE_SPAWN_ID'

interface ProcInfo { pid: number, ppid: number, pgid: number, zombie: boolean }

function readStat(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name is in parentheses and may contain spaces: read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), zombie: fields[0] === 'Z' }
  }
  catch {
    return null
  }
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)
  }
  catch {
    return false
  }
}

function allPids(): number[] {
  try {
    return readdirSync('/proc').filter(name => /^\d+$/.test(name)).map(Number)
  }
  catch {
    return []
  }
}

/**
 * Every live process of the spawn: the group `pgid`, the descendants of `rootPid`, and the
 * processes carrying `SYNEDRE_SPAWN_ID=<spawnId>` (never this process).
 */
export function spawnProcesses(options: { rootPid?: number, pgid?: number, spawnId?: string }): number[] {
  if (process.platform !== 'linux') return []
  const infos = allPids().map(readStat).filter((info): info is ProcInfo => info !== null && !info.zombie)
  const found = new Set<number>()
  const marker = options.spawnId ? `${SPAWN_MARKER}=${options.spawnId}` : undefined
  for (const info of infos) {
    if (info.pid === process.pid) continue
    if (options.pgid !== undefined && info.pgid === options.pgid) found.add(info.pid)
    else if (marker && hasMarker(info.pid, marker)) found.add(info.pid)
  }
  if (options.rootPid !== undefined) {
    // The root counts only while alive (the kernel re-parents the children of an ended
    // process at once: those are found by group or marker).
    const root = options.rootPid
    if (infos.some(info => info.pid === root)) found.add(root)
    let grew = true
    while (grew) {
      grew = false
      for (const info of infos) {
        if (!found.has(info.pid) && found.has(info.ppid) && info.pid !== process.pid) {
          found.add(info.pid)
          grew = true
        }
      }
    }
  }
  return [...found].filter(pid => pid !== process.pid && pid > 1)
}

/** Alive and not a zombie (a killed orphan may wait a while for its reaper). */
export const isAlive = isProcessAlive

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig)
  }
  catch { /* already gone */ }
}

export interface StopTarget {
  /** A process group to signal as a whole (negative pid). */
  pgid?: number
  rootPid?: number
  spawnId?: string
}

/**
 * TERM to the group and to every other process of the spawn, then KILL to whatever is still
 * alive after `graceMs`. Resolves with the pids that had to be killed.
 */
export async function stopSpawnProcesses(target: StopTarget, graceMs: number): Promise<{ termed: number[], killed: number[] }> {
  const termed = spawnProcesses(target)
  if (target.pgid !== undefined) signal(-target.pgid, 'SIGTERM')
  for (const pid of termed) signal(pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    if (!termed.some(isAlive) && spawnProcesses(target).length === 0) return { termed, killed: [] }
    await new Promise(resolve => setTimeout(resolve, Math.min(100, Math.max(10, deadline - Date.now()))))
  }
  const remaining = [...new Set([...termed.filter(isAlive), ...spawnProcesses(target)])]
  // Only what is still alive is killed: a pid or group id of a finished process may be reused.
  if (target.pgid !== undefined && remaining.length > 0) signal(-target.pgid, 'SIGKILL')
  for (const pid of remaining) signal(pid, 'SIGKILL')
  return { termed, killed: remaining }
}

export interface CommandResult {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  durationMs: number
  /** The last bytes of stdout and stderr together. */
  outputTail: string
}

/**
 * Runs a shell command in its own process group with a deadline; at the deadline the whole
 * group is stopped (TERM, then KILL). Output is kept as a bounded tail.
 */
export function runCommand(
  command: string,
  options: {
    env: Record<string, string | undefined>
    cwd?: string
    timeoutMs: number
    graceMs: number
    tailBytes?: number
    signal?: AbortSignal
  },
): Promise<CommandResult> {
  const started = Date.now()
  const tailBytes = options.tailBytes ?? 16 * 1024
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let tail = ''
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-tailBytes)
    }
    child.stdout!.on('data', keep)
    child.stderr!.on('data', keep)
    let timedOut = false
    const stop = () => {
      if (child.pid !== undefined) void stopSpawnProcesses({ pgid: child.pid, rootPid: child.pid }, options.graceMs)
    }
    const timer = setTimeout(() => {
      timedOut = true
      stop()
    }, options.timeoutMs)
    const onAbort = () => stop()
    options.signal?.addEventListener('abort', onAbort, { once: true })
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('close', (code, sig) => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      resolve({ exitCode: code, signal: sig, timedOut, durationMs: Date.now() - started, outputTail: tail })
    })
  })
}
