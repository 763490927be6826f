// A founder's "run now" (issue 36 Deliver 5): an automate started from the hub at once, as the
// night starts it — a process through the supervision wrapper (automates/run.ts, the command
// the crontab and the supervisor run), with the crontab line's flags or --dry-run. Its run is
// therefore one more ops_cron_runs row: the same run log, the same live progress, the same
// lease (a run already going is refused, not doubled) and circuit breaker.
import { spawn } from 'node:child_process'
import { z } from 'zod'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { findAutomation } from './automations'
import { readLease } from './leases'
import { leaseName } from './supervise'

export const RUN_MODES = ['dry_run', 'live'] as const
export type RunMode = typeof RUN_MODES[number]
export const RunNowBody = z.object({ mode: z.enum(RUN_MODES) }).strict()

export class RunNowError extends Error {
  constructor(readonly code: 'not_found' | 'no_dry_run' | 'switched_off' | 'already_running', message: string, readonly status: number) {
    super(message)
  }
}

/** Starts the automate's process; resolves once it has started (not when it ends). */
export type LaunchAutomate = (name: string, args: string[]) => Promise<{ pid: number }>

export interface RunNowDeps {
  db: Db
  launch: LaunchAutomate
  now?: () => Date
}

export interface RunNowStarted { name: string, mode: RunMode, args: string[], pid: number }

export async function runAutomateNow(deps: RunNowDeps, name: string, mode: RunMode, actor: string): Promise<RunNowStarted> {
  const automation = await findAutomation(deps.db, name)
  if (!automation) throw new RunNowError('not_found', `No automation named ${name}.`, 404)
  if (mode === 'dry_run' && !automation.dryRun) throw new RunNowError('no_dry_run', `${name} has no dry run: it can only run for real.`, 400)
  if (!automation.active) throw new RunNowError('switched_off', `${name} is switched off${automation.updatedBy ? ` (by ${automation.updatedBy})` : ''}: switch it on to run it.`, 409)
  const lease = await readLease(deps.db, leaseName(name))
  const now = (deps.now ?? (() => new Date()))()
  if (lease && lease.expiresAt > now) throw new RunNowError('already_running', `${name} is already running (${lease.host}:${lease.pid}, since ${lease.acquiredAt.toISOString()}): its progress is in the run log.`, 409)
  const args = mode === 'dry_run' ? ['--dry-run'] : automation.args
  const { pid } = await deps.launch(name, args)
  await recordAudit(deps.db, { actor, action: 'automation_run_now', target: name, details: { mode, args, pid } })
  return { name, mode, args, pid }
}

export interface ProcessLauncherOptions {
  /** The checkout holding automates/run.ts (SYNEDRE_HOME, else the hub's working folder). */
  root: string
  env: NodeJS.ProcessEnv
  log: (line: string) => void
}

/**
 * Runs `node --import tsx automates/run.ts <name> [flags]` in the background, as the supervisor
 * does. Its output goes to its run log row; what it says before that row exists (a module that
 * fails to load) is logged with its exit code, never lost.
 */
export function processLauncher(options: ProcessLauncherOptions): LaunchAutomate {
  return (name, args) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'automates/run.ts', name, ...args], { cwd: options.root, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000)
    })
    child.once('error', reject)
    child.once('spawn', () => resolve({ pid: child.pid! }))
    child.once('exit', (code, signal) => {
      if (code !== 0) options.log(`[run-now] ${name} ${args.join(' ')} exited with ${code ?? signal}${stderr ? `: ${stderr.trim()}` : ''}`)
    })
  })
}
