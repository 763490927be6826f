// What an automate is: a named job with a run function that receives its dependencies
// and returns an exit code. The supervision wrapper (supervise.ts) runs every one of them.
import type { Db } from '#db/client'

export interface AutomateContext {
  db: Db
  /** Flags as given on the command line (after the automate's name). */
  args: string[]
  /** Writes a line to stdout and to the execution log's output tail. */
  log: (line: string) => void
  /** Aborted when the lease is lost or the process is asked to stop. */
  signal: AbortSignal
  host: string
  now: () => Date
  /**
   * Says a prerequisite is missing (`variable` names what to set): the run is recorded as
   * `not configured` rather than `ok`, even when it did the rest of its work.
   */
  notConfigured: (variable: string, message: string) => void
}

export interface AutomateDefinition {
  name: string
  description: string
  /** What the automate touches: shown in the hub registry. */
  scope: string
  /** Lease time-to-live; the wrapper heartbeats at a third of it. */
  leaseTtlMs?: number
  /**
   * Exit codes that report a state rather than a failure (the health report's 1 warning and
   * 2 critical): the run is recorded `ok` with its code, and the CLI still exits with it.
   */
  informationalExitCodes?: number[]
  /** It takes --dry-run (reads and reports, writes nothing): the hub offers a dry run before a real one. */
  dryRun?: boolean
  /** Flags under which the circuit breaker is not consulted (the loop's --dry-run writes nothing). */
  bypassCircuitBreaker?: (args: string[]) => boolean
  run: (ctx: AutomateContext) => Promise<number>
}

export function defineAutomate(definition: AutomateDefinition): AutomateDefinition {
  return definition
}
