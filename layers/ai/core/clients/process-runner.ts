// Runs a program to completion and hands back what it printed: the agent CLI adapter's
// only contact with the operating system (tests inject their own runner).
import { spawn } from 'node:child_process'

export interface ProcessRunOptions {
  env: Record<string, string | undefined>
  timeoutMs: number
  signal?: AbortSignal
  cwd?: string
  /** stdout beyond this is dropped (the answer is a single JSON object). */
  maxOutputBytes?: number
}

export interface ProcessRunResult {
  exitCode: number | null
  signal: string | null
  stdout: string
  stderr: string
  timedOut: boolean
}

export type ProcessRunner = (command: string, args: string[], options: ProcessRunOptions) => Promise<ProcessRunResult>

/** The default runner: child_process.spawn in its own process group, killed as a group on timeout or abort. */
export const spawnProcess: ProcessRunner = (command, args, options) => new Promise((resolve, reject) => {
  const limit = options.maxOutputBytes ?? 10 * 1024 * 1024
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
  })
  const out: Buffer[] = []
  const err: Buffer[] = []
  let outBytes = 0
  let errBytes = 0
  let timedOut = false
  let settled = false
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, signal)
      else child.kill(signal)
    }
    catch { /* already gone */ }
  }
  const stop = () => {
    killGroup('SIGTERM')
    setTimeout(() => killGroup('SIGKILL'), 2_000).unref()
  }
  const timer = setTimeout(() => {
    timedOut = true
    stop()
  }, options.timeoutMs)
  const onAbort = () => stop()
  options.signal?.addEventListener('abort', onAbort, { once: true })
  child.stdout!.on('data', (chunk: Buffer) => {
    if (outBytes < limit) out.push(chunk)
    outBytes += chunk.length
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    if (errBytes < 64 * 1024) err.push(chunk)
    errBytes += chunk.length
  })
  child.once('error', (error) => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
    reject(error)
  })
  child.once('close', (exitCode, signal) => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
    resolve({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut })
  })
})
