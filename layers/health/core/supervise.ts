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
import { closeRun, openRun, recordSkip, writeProgress } from './cron-runs'
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

export async function supervise(deps: SuperviseDeps, automate: AutomateDefinition, args: string[]): Promise<SuperviseResult> {
  const { db, host, pid } = deps
  const identity = { automation: automate.name, args, host, pid }

  const registry = await db.query.opsAutomations.findFirst({ where: eq(opsAutomations.name, automate.name) })
  if (registry && !registry.active && !automate.bypassCircuitBreaker?.(args)) {
    const reason = `circuit breaker: ops_automations.active is off for ${automate.name}`
      + (registry.updatedBy ? ` (switched off by ${registry.updatedBy})` : '')
    deps.write(`[${automate.name}] skipped — ${reason}\n`)
    await recordSkip(db, identity, reason)
    return { status: 'skipped', exitCode: 0, reason }
  }

  const ttlMs = automate.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
  const lock = leaseName(automate.name)
  const holder = randomUUID()
  if (!await acquireLease(db, lock, { holder, host, pid }, ttlMs)) {
    const held = await readLease(db, lock)
    const reason = held
      ? `lease held by ${held.host}:${held.pid} since ${held.acquiredAt.toISOString()}`
      : 'lease held by another instance'
    deps.write(`[${automate.name}] skipped — ${reason}\n`)
    await recordSkip(db, identity, reason)
    return { status: 'skipped', exitCode: 0, reason }
  }

  const runId = await openRun(db, identity)
  const tail = createOutputTail()
  const stop = new AbortController()
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

  let exitCode: number
  let reason: string | undefined
  let missing: string | undefined
  let crashed = false
  try {
    exitCode = await automate.run({
      db,
      args,
      host,
      signal: stop.signal,
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
  }
  catch (error) {
    exitCode = 1
    crashed = true
    reason = automateFailureReason(error)
    const text = `[${automate.name}] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
    tail.write(text)
    deps.write(text)
  }
  finally {
    clearInterval(heartbeat)
    clearInterval(progress)
    deps.signal?.removeEventListener('abort', onOuterAbort)
  }

  const failed = crashed || (exitCode !== 0 && !automate.informationalExitCodes?.includes(exitCode))
  const status = failed ? 'failed' : missing ? 'not_configured' : 'ok'
  if (status === 'not_configured') reason = missing
  // A failing exit code with no error thrown still says something a person can act on.
  if (status === 'failed' && !crashed) reason = exitFailureReason(exitCode, tail.read(), missing)
  await closeRun(db, runId, { status, exitCode, reason, outputTail: tail.read() })
  await releaseLease(db, lock, holder)
  return { status, exitCode, reason }
}
