// Feature 10, the daily cost ticket: yesterday's AI cost per agent (the ledger's actor) against
// the same agent's average over the 7 days before; above +20 % an alert is raised (ops_alerts,
// one per agent, which the health page shows) and the morning mail carries it.
import { sql } from 'drizzle-orm'
import { opsAlerts } from '#db/schema/ops'
import { daysBefore, yesterday, type NightlyFeature } from './context'

export const COST_ALERT_KIND = 'ai_cost_spike'
/** The rise over the 7-day average past which an agent's day is alerted. */
export const COST_ALERT_RISE = 0.2
const AVERAGE_DAYS = 7

export interface CostLine { agent: string, yesterdayUsd: number, averageUsd: number, rise: number | null, alert: boolean }

export const costTicket: NightlyFeature = {
  name: 'cost-ticket',
  routingKey: null,
  async run(ctx) {
    const { start, end, day } = yesterday(ctx.now)
    const from = daysBefore(start, AVERAGE_DAYS)
    const rows = await ctx.db.execute<{ agent: string, yesterday: string, before: string }>(sql`
      select coalesce(actor, 'unattributed') as agent,
        coalesce(sum(cost_usd) filter (where at >= ${start.toISOString()}), 0)::text as yesterday,
        coalesce(sum(cost_usd) filter (where at < ${start.toISOString()}), 0)::text as before
      from ai_consumption where at >= ${from.toISOString()} and at < ${end.toISOString()}
      group by 1 order by 1`)
    const lines: CostLine[] = rows.map((r) => {
      const yesterdayUsd = Number(r.yesterday)
      const averageUsd = Number(r.before) / AVERAGE_DAYS
      const rise = averageUsd > 0 ? (yesterdayUsd - averageUsd) / averageUsd : null
      return { agent: r.agent, yesterdayUsd, averageUsd, rise, alert: rise !== null && rise > COST_ALERT_RISE }
    })
    const alerts = lines.filter(l => l.alert)
    if (!ctx.dryRun) {
      for (const line of alerts) {
        const message = `AI cost of ${line.agent} on ${day}: $${line.yesterdayUsd.toFixed(2)}, +${Math.round(line.rise! * 100)} % over its 7-day average ($${line.averageUsd.toFixed(2)}).`
        const details = { day, yesterdayUsd: line.yesterdayUsd, averageUsd: line.averageUsd, rise: line.rise }
        await ctx.db.insert(opsAlerts).values({ kind: COST_ALERT_KIND, subject: line.agent, message, details })
          .onConflictDoUpdate({ target: [opsAlerts.kind, opsAlerts.subject, opsAlerts.holder], set: { message, details, raisedAt: sql`now()`, notifiedAt: null, resolvedAt: null } })
      }
    }
    return {
      counts: { agents: lines.length, alerts: alerts.length },
      items: lines.map(l => ({ ...l, day })),
      drafts: [],
    }
  },
}
