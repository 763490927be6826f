// The supervision wrapper every automate runs through:
//   1. circuit breaker: ops_automations.active = false → skip, logged with the reason;
//   2. lease lock: one holder at a time across processes and hosts, heartbeated;
//   3. execution log: an ops_cron_runs row with exit code, duration and output tail; a run
//      that ends well but said a prerequisite is missing is `not_configured`, never `ok`.
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { opsAutomations } from '#db/schema/index'
import type { AutomateDefinition } from './automate'
import { acquireLease, heartbeatLease, readLease, releaseLease } from './leases'
import { closeRun, openRun, recordSkip, writeProgress, type RunIdentity } from './cron-runs'
import { automateFailureReason, exitFailureReason } from './failure-words'
import { createOutputTail } from './output-tail'

export const DEFAULT_LEASE_TTL_MS = 120_000
/** How often a running automate's output so far is written to its run log row. */
export const PROGRESS_EVERY_MS = 2000

export interface SuperviseDeps {
  db: Db
  host: string
  pid: number
  write: (text: string) => void
  now?: () => Date
  /** Aborts the running automate (SIGTERM in the CLI). */
  signal?: AbortSignal
}

export interface SuperviseResult {
  status: 'ok' | 'not_configured' | 'failed' | 'skipped'
  exitCode: number
  reason?: string
}

export function leaseName(automation: string): string {
  return `automate:${automation}`
}

type OutputTail = ReturnType<typeof createOutputTail>

/** Why the circuit breaker skips this run (ops_automations.active off, no bypass for these args); null: it runs. */
async function circuitBreakerReason(db: Db, automate: AutomateDefinition, args: string[]): Promise<string | null> {
  const registry = await db.query.opsAutomations.findFirst({ where: eq(opsAutomations.name, automate.name) })
  if (!registry || registry.active || automate.bypassCircuitBreaker?.(args)) return null
  return `circuit breaker: ops_automations.active is off for ${automate.name}`
    + (registry.updatedBy ? ` (switched off by ${registry.updatedBy})` : '')
}

/** Who holds the lease this instance could not take. */
async function leaseHeldReason(db: Db, lock: string): Promise<string> {
  const held = await readLease(db, lock)
  return held
    ? `lease held by ${held.host}:${held.pid} since ${held.acquiredAt.toISOString()}`
    : 'lease held by another instance'
}

async function skip(deps: SuperviseDeps, automate: AutomateDefinition, identity: RunIdentity, reason: string): Promise<SuperviseResult> {
  deps.write(`[${automate.name}] skipped — ${reason}\n`)
  await recordSkip(deps.db, identity, reason)
  return { status: 'skipped', exitCode: 0, reason }
}

interface Watched {
  runId: number
  lock: string
  holder: string
  ttlMs: number
  tail: OutputTail
  stop: AbortController
}

/**
 * While the automate runs: an outer abort passed on, the lease heartbeated (lost: the run is
 * aborted), the output so far written to the run log row. Returns what ends the watch.
 */
function watchRun(deps: SuperviseDeps, automate: AutomateDefinition, watched: Watched): () => void {
  const { db } = deps
  const { runId, lock, holder, ttlMs, tail, stop } = watched
  const onOuterAbort = () => stop.abort(deps.signal?.reason ?? new Error('stopped'))
  deps.signal?.addEventListener('abort', onOuterAbort, { once: true })
  const heartbeat = setInterval(() => {
    heartbeatLease(db, lock, holder, ttlMs)
      .then((kept) => {
        if (!kept) stop.abort(new Error('lease lost: another instance took it over'))
      })
      .catch(() => { /* a missed beat is retried at the next tick; expiry is the backstop */ })
  }, Math.max(1000, Math.floor(ttlMs / 3)))
  let written = ''
  const progress = setInterval(() => {
    const text = tail.read()
    if (text === written) return
    written = text
    writeProgress(db, runId, text).catch((error: unknown) => {
      deps.write(`[${automate.name}] progress not recorded: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  }, PROGRESS_EVERY_MS)
  return () => {
    clearInterval(heartbeat)
    clearInterval(progress)
    deps.signal?.removeEventListener('abort', onOuterAbort)
  }
}

interface RunEnd {
  exitCode: number
  /** The crash's reason, in words. */
  reason?: string
  /** The first prerequisite the automate said was missing. */
  missing?: string
  crashed: boolean
}

/** Runs the automate; a crash is exit code 1 with its reason, never a throw. */
async function runAutomate(
  deps: SuperviseDeps,
  automate: AutomateDefinition,
  args: string[],
  signal: AbortSignal,
  tail: OutputTail,
): Promise<RunEnd> {
  let missing: string | undefined
  try {
    const exitCode = await automate.run({
      db: deps.db,
      args,
      host: deps.host,
      signal,
      now: deps.now ?? (() => new Date()),
      notConfigured: (variable, message) => {
        missing ??= `set ${variable}: ${message}`
      },
      log: (line) => {
        const text = `${line}\n`
        tail.write(text)
        deps.write(text)
      },
    })
    return { exitCode, missing, crashed: false }
  }
  catch (error) {
    const reason = automateFailureReason(error)
    const text = `[${automate.name}] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
    tail.write(text)
    deps.write(text)
    return { exitCode: 1, reason, missing, crashed: true }
  }
}

/** The run's status and its reason: a run that ends well but said a prerequisite is missing is `not_configured`. */
function outcomeOf(automate: AutomateDefinition, end: RunEnd, output: string): { status: 'ok' | 'not_configured' | 'failed', reason?: string } {
  const { exitCode, missing, crashed } = end
  const failed = crashed || (exitCode !== 0 && !automate.informationalExitCodes?.includes(exitCode))
  const status = failed ? 'failed' : missing ? 'not_configured' : 'ok'
  let reason = end.reason
  if (status === 'not_configured') reason = missing
  // A failing exit code with no error thrown still says something a person can act on.
  if (status === 'failed' && !crashed) reason = exitFailureReason(exitCode, output, missing)
  return { status, reason }
}

export async function supervise(deps: SuperviseDeps, automate: AutomateDefinition, args: string[]): Promise<SuperviseResult> {
  const { db, host, pid } = deps
  const identity = { automation: automate.name, args, host, pid }

  const switchedOff = await circuitBreakerReason(db, automate, args)
  if (switchedOff) return await skip(deps, automate, identity, switchedOff)

  const ttlMs = automate.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
  const lock = leaseName(automate.name)
  const holder = randomUUID()
  if (!await acquireLease(db, lock, { holder, host, pid }, ttlMs)) {
    return await skip(deps, automate, identity, await leaseHeldReason(db, lock))
  }

  const runId = await openRun(db, identity)
  const tail = createOutputTail()
  const stop = new AbortController()
  const endWatch = watchRun(deps, automate, { runId, lock, holder, ttlMs, tail, stop })
  let end: RunEnd
  try {
    end = await runAutomate(deps, automate, args, stop.signal, tail)
  }
  finally {
    endWatch()
  }

  const { status, reason } = outcomeOf(automate, end, tail.read())
  await closeRun(db, runId, { status, exitCode: end.exitCode, reason, outputTail: tail.read() })
  await releaseLease(db, lock, holder)
  return { status, exitCode: end.exitCode, reason }
}
