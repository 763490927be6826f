// What every nightly consolidation feature receives (dependencies passed in, no Nuxt) and
// what it hands back: counts and ids of what it did, or would do in a dry-run.
import type { Db } from '#db/client'
import type { AiFacade } from '#layers/ai/core/facade'

export interface NightlyContext {
  db: Db
  ai: AiFacade
  vaultDir: string
  now: Date
  /** The default: read, count, report; write nothing and call no model. */
  dryRun: boolean
  log: (line: string) => void
  signal?: AbortSignal
  /** The features' settings (NIGHTLY_DIVERGENCE_RULES, NIGHTLY_OBSOLESCENCE_DAYS); the automate passes process.env. */
  env?: Record<string, string | undefined>
}

export interface FeatureReport {
  feature: string
  /** The routing key the feature resolves its model through (the facade's `feature`). */
  routingKey: string | null
  dryRun: boolean
  /** Counts (candidates, drafted, archived, …), by name. */
  counts: Record<string, number>
  /** Ids and vault paths of what was (or would be) produced. */
  items: Array<Record<string, unknown>>
  /** Vault paths of the drafts written tonight (none in a dry-run). */
  drafts: string[]
  /** Set when the feature was skipped (e.g. persona drift outside the 1st of the month). */
  skipped?: string
}

export interface NightlyFeature {
  name: string
  routingKey: string | null
  run: (ctx: NightlyContext) => Promise<Omit<FeatureReport, 'feature' | 'routingKey' | 'dryRun'>>
}

const DAY_MS = 86_400_000

/** The UTC day before `now`: [start, end). */
export function yesterday(now: Date): { start: Date, end: Date, day: string } {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  const start = new Date(end.getTime() - DAY_MS)
  return { start, end, day: start.toISOString().slice(0, 10) }
}

export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS)
}
