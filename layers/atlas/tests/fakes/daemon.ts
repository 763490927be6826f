// A system daemon run in the foreground for a test (clamd, Dovecot): its output and log file
// kept for the error message when it does not come up, ready when `ready()` says so, stopped
// with TERM then KILL after 5 s, its temporary folder removed.
import { spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { waitUntil } from './ports'

export interface Daemon {
  /** Its standard output and error, then its log file. */
  log: () => string
  stop: () => Promise<void>
}

export async function startDaemon(options: {
  binary: string
  args: string[]
  /** The daemon's temporary folder, removed when it stops. */
  dir: string
  logFile: string
  /** Named in the error: "clamd on 127.0.0.1:1234". */
  what: string
  ready: () => Promise<boolean>
  readyTimeoutMs: number
}): Promise<Daemon> {
  let output = ''
  const child = spawn(options.binary, options.args, { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  const log = () => {
    let file = ''
    try {
      file = readFileSync(options.logFile, 'utf8')
    }
    catch { /* not written yet */ }
    return `${output}\n${file}`
  }
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    }
    rmSync(options.dir, { recursive: true, force: true })
  }
  try {
    await waitUntil(async () => child.exitCode === null && await options.ready(), options.readyTimeoutMs, () => `${options.what} did not start:\n${log()}`)
  }
  catch (error) {
    await stop()
    throw error
  }
  return { log, stop }
}
