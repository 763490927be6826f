// Simulated hosts for system tests: each is a UTS + PID + mount namespace of its own
// (`unshare --uts --pid --fork --kill-child --mount-proc`), its own host name set inside,
// its own /proc (so pids, liveness checks and process walks are the host's own), its
// processes dying together when its init dies. They share the machine's loopback network,
// hence the one PostgreSQL on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { ROOT } from './processes'

export interface HostProcess {
  /** A label for the output lines (e.g. `worker`). */
  label: string
  /** A TypeScript entry point, run as `node --import tsx <script> ...args` from the project root. */
  script: string
  args?: string[]
  env?: Record<string, string>
}

export interface SimulatedHost {
  name: string
  /** The namespace's init (pid 1 inside), as this machine sees it. */
  initPid: () => number
  lines: string[]
  /** SIGKILL to the init: the kernel then kills every process of the namespace. */
  kill: () => void
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
  child: ChildProcess
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`

/**
 * Starts a host running `processes` side by side under a shell init that waits for them.
 * Every output line is kept (prefixed `[host label]`) and handed to `onLine`.
 */
export function startHost(
  name: string,
  processes: HostProcess[],
  options: { env: Record<string, string>, onLine?: (line: string) => void },
): SimulatedHost {
  if (!/^[a-z][a-z0-9-]{0,30}$/.test(name)) throw new Error(`not a host name: ${name}`)
  const launches = processes.map((proc) => {
    const env = Object.entries(proc.env ?? {})
      .map(([key, value]) => `${key}=${quote(value)}`)
      .join(' ')
    const command = [quote(process.execPath), '--import', 'tsx', quote(proc.script), ...(proc.args ?? []).map(quote)].join(' ')
    // Each line tagged with its host and process, through the shell (no extra process).
    return `(${env ? `env ${env} ` : ''}${command} 2>&1 | while IFS= read -r line; do printf '[%s %s] %s\\n' "$H" ${quote(proc.label)} "$line"; done) &`
  })
  const script = [`hostname ${name}`, 'H=$(hostname)', ...launches, 'wait'].join('\n')
  // Without root, a user namespace mapping us to root grants the rest (where the kernel allows it).
  const asUser = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']
  const child = spawn('unshare', [...asUser, '--uts', '--pid', '--fork', '--kill-child', '--mount-proc', '--', '/bin/sh', '-c', script], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const take = (line: string) => {
    lines.push(line)
    options.onLine?.(line)
  }
  createInterface({ input: child.stdout! }).on('line', take)
  createInterface({ input: child.stderr! }).on('line', line => take(`[${name} unshare] ${line}`))
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>(resolve =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const initPid = () => {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    if (children.length !== 1) throw new Error(`host ${name}: expected one init under unshare ${child.pid}, found ${children.length}`)
    return children[0]!
  }
  return {
    name,
    initPid,
    lines,
    child,
    exited,
    kill: () => process.kill(initPid(), 'SIGKILL'),
  }
}
