// Feature 3, the morning summary: one mail to the internal team, only when the night produced
// drafts or a journal (or raised a cost alert), listing them for a person to review.
import type { ConsolidationReport } from './consolidation'

export type SendToTeam = (mail: { subject: string, text: string }) => Promise<{ sent: boolean, reason?: string }>

export function morningSummary(report: Pick<ConsolidationReport, 'at' | 'drafts' | 'features'>): { subject: string, text: string } | null {
  const alerts = report.features.find(f => f.feature === 'cost-ticket')?.items.filter(i => i.alert) ?? []
  if (report.drafts.length === 0 && alerts.length === 0) return null
  const day = report.at.slice(0, 10)
  const lines = [
    `The nightly consolidation of ${day} left ${report.drafts.length} draft(s) in the vault inbox for review (nothing was promoted):`,
    ...report.drafts.map(d => `- ${d}`),
    ...(alerts.length > 0 ? ['', 'AI cost above its 7-day average by more than 20 %:', ...alerts.map(a => `- ${String(a.agent)}: $${Number(a.yesterdayUsd).toFixed(2)} (average $${Number(a.averageUsd).toFixed(2)})`)] : []),
    ...report.features.filter(f => f.error).map(f => `\n${f.feature} failed: ${f.error}`),
  ]
  return { subject: `[Synedre] Nightly consolidation ${day}: ${report.drafts.length} draft(s)${alerts.length ? `, ${alerts.length} cost alert(s)` : ''}`, text: `${lines.join('\n')}\n` }
}
