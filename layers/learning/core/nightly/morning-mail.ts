// Feature 3, the morning summary: one mail to the internal team, only when the night produced
// drafts or a journal (or raised a cost alert, or found a project needing action), listing
// them for a person to review.
import type { ConsolidationReport } from './consolidation'

export type SendToTeam = (mail: { subject: string, text: string }) => Promise<{ sent: boolean, reason?: string }>

export function morningSummary(report: Pick<ConsolidationReport, 'at' | 'drafts' | 'features'>): { subject: string, text: string } | null {
  const alerts = report.features.find(f => f.feature === 'cost-ticket')?.items.filter(i => i.alert) ?? []
  // Tonight's classifications only: a re-run the same night does not list them again.
  const actions = report.features.find(f => f.feature === 'project-proactivity')?.items.filter(i => i.verdict === 'action_required' && !i.already) ?? []
  if (report.drafts.length === 0 && alerts.length === 0 && actions.length === 0) return null
  const day = report.at.slice(0, 10)
  const lines = [
    `The nightly consolidation of ${day} left ${report.drafts.length} draft(s) in the vault inbox for review (nothing was promoted):`,
    ...report.drafts.map(d => `- ${d}`),
    ...(alerts.length > 0 ? ['', 'AI cost above its 7-day average by more than 20 %:', ...alerts.map(a => `- ${String(a.agent)}: $${Number(a.yesterdayUsd).toFixed(2)} (average $${Number(a.averageUsd).toFixed(2)})`)] : []),
    ...(actions.length > 0 ? ['', 'Projects whose client waits for the studio (project proactivity):', ...actions.map(a => `- ${String(a.project)} (${String(a.tenant)}): "${String(a.subject)}" — ${String(a.reason)}`)] : []),
    ...report.features.filter(f => f.error).map(f => `\n${f.feature} failed: ${f.error}`),
  ]
  return { subject: `[Synedre] Nightly consolidation ${day}: ${report.drafts.length} draft(s)${alerts.length ? `, ${alerts.length} cost alert(s)` : ''}${actions.length ? `, ${actions.length} project(s) needing action` : ''}`, text: `${lines.join('\n')}\n` }
}
