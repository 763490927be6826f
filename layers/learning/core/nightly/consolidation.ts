// The nightly consolidation (memory-and-learning §4.6): the features in order, each reporting
// what it did or would do. A feature's failure is reported and the others still run. The
// cross-cutting rule: nothing is promoted — every product is a draft in the vault inbox, an
// alert, or an archive mark a person can undo.
import type { FeatureReport, NightlyContext, NightlyFeature } from './context'
import { costTicket } from './cost-ticket'
import { divergenceAudit } from './divergence-audit'
import { forgettingCurve } from './forgetting-curve'
import { morningSummary, type SendToTeam } from './morning-mail'
import { nightlyReflection } from './nightly-reflection'
import { obsolescenceAudit } from './obsolescence-audit'
import { personaDrift } from './persona-drift'
import { projectProactivity } from './project-proactivity'
import { repeatedScars } from './repeated-scars'
import { sessionCompaction } from './session-compaction'

export const NIGHTLY_FEATURES: readonly NightlyFeature[] = [
  repeatedScars,
  sessionCompaction,
  nightlyReflection,
  divergenceAudit,
  forgettingCurve,
  projectProactivity,
  obsolescenceAudit,
  personaDrift,
  costTicket,
]
export const NIGHTLY_FEATURE_NAMES = NIGHTLY_FEATURES.map(f => f.name)

export interface ConsolidationReport {
  at: string
  dryRun: boolean
  features: Array<FeatureReport & { ms: number, error?: string }>
  drafts: string[]
  failed: number
  /** The morning summary: null when nothing was produced (or in a dry-run), else whether it went out. */
  mail: { subject: string, sent: boolean, reason?: string } | null
}

export async function runConsolidation(
  ctx: NightlyContext,
  options: { only?: string, sendToTeam?: SendToTeam } = {},
): Promise<ConsolidationReport> {
  if (options.only !== undefined && !NIGHTLY_FEATURE_NAMES.includes(options.only))
    throw new Error(`--only must be one of ${NIGHTLY_FEATURE_NAMES.join(', ')} (got ${options.only})`)
  const features: ConsolidationReport['features'] = []
  for (const feature of NIGHTLY_FEATURES.filter(f => options.only === undefined || f.name === options.only)) {
    const base = { feature: feature.name, routingKey: feature.routingKey, dryRun: ctx.dryRun }
    const started = Date.now()
    try {
      const result = await feature.run(ctx)
      // A feature that went on past some of its agents or projects still failed for those.
      const partial
        = (result.counts.failed ?? 0) > 0
          ? `failed for ${result.counts.failed} item(s): ${String(result.items.find(i => i.error)?.error ?? 'see items')}`
          : undefined
      features.push({ ...base, ...result, ms: Date.now() - started, ...(partial ? { error: partial } : {}) })
    }
    catch (error) {
      // A failed query's own message is the SQL; the database's reason is its cause.
      const cause = (error as Error).cause
      const message = cause instanceof Error ? `${(error as Error).message.split('\n')[0]} ${cause.message}` : (error as Error).message
      ctx.log(`${feature.name}: ${message}`)
      features.push({ ...base, counts: {}, items: [], drafts: [], ms: Date.now() - started, error: message })
    }
  }
  const drafts = features.flatMap(f => f.drafts)
  const report: ConsolidationReport = {
    at: ctx.now.toISOString(),
    dryRun: ctx.dryRun,
    features,
    drafts,
    failed: features.filter(f => f.error).length,
    mail: null,
  }
  const summary = ctx.dryRun ? null : morningSummary(report)
  if (summary && options.sendToTeam) {
    const outcome = await options.sendToTeam(summary)
    report.mail = { subject: summary.subject, sent: outcome.sent, reason: outcome.reason }
    if (!outcome.sent) ctx.log(`morning summary not sent: ${outcome.reason ?? 'unknown reason'}`)
  }
  return report
}
