// Feature 3, the morning summary: one mail to the internal team, only when the night produced
// drafts or a journal, raised a cost alert, found a project needing action, gave a project a
// verdict other than still relevant or measured a persona drift — listing them for a person
// to review and decide.
import type { ConsolidationReport } from './consolidation'

export type SendToTeam = (mail: { subject: string, text: string }) => Promise<{ sent: boolean, reason?: string }>

export function morningSummary(report: Pick<ConsolidationReport, 'at' | 'drafts' | 'features'>): { subject: string, text: string } | null {
  const alerts = report.features.find(f => f.feature === 'cost-ticket')?.items.filter(i => i.alert) ?? []
  // Tonight's classifications only: a re-run the same night does not list them again.
  const actions = report.features.find(f => f.feature === 'project-proactivity')?.items.filter(i => i.verdict === 'action_required' && !i.already) ?? []
  const verdicts = report.features.find(f => f.feature === 'obsolescence-audit')?.items.filter(i => i.inactive && i.verdict !== 'still_relevant') ?? []
  const drifted = report.features.find(f => f.feature === 'persona-drift')?.items.filter(i => i.top) ?? []
  if (report.drafts.length === 0 && alerts.length === 0 && actions.length === 0 && verdicts.length === 0 && drifted.length === 0)
    return null
  const day = report.at.slice(0, 10)
  const lines = [
    `The nightly consolidation of ${day} left ${report.drafts.length} draft(s) in the vault inbox for review (nothing was promoted):`,
    ...report.drafts.map(d => `- ${d}`),
    ...(alerts.length > 0 ? ['', 'AI cost above its 7-day average by more than 20 %:', ...alerts.map(a => `- ${String(a.agent)}: $${Number(a.yesterdayUsd).toFixed(2)} (average $${Number(a.averageUsd).toFixed(2)})`)] : []),
    ...(actions.length > 0 ? ['', 'Projects whose client waits for the studio (project proactivity):', ...actions.map(a => `- ${String(a.project)} (${String(a.tenant)}): "${String(a.subject)}" — ${String(a.reason)}`)] : []),
    ...(verdicts.length > 0 ? ['', 'Projects inactive past the threshold, for your decision (nothing was archived):', ...verdicts.map(v => `- ${String(v.name)} (${String(v.projectId)}): ${String(v.verdict)} — ${String(v.reason)}`)] : []),
    ...(drifted.length > 0 ? ['', 'Agents most drifted from their seeded persona this month:', ...drifted.map(d => `- ${String(d.agent)}: ${Number(d.score).toFixed(3)} (${Object.keys(d.fields as Record<string, number>).join(', ')})`)] : []),
    ...report.features.filter(f => f.error).map(f => `\n${f.feature} failed: ${f.error}`),
  ]
  return { subject: `[Synedre] Nightly consolidation ${day}: ${report.drafts.length} draft(s)${alerts.length ? `, ${alerts.length} cost alert(s)` : ''}${actions.length ? `, ${actions.length} project(s) needing action` : ''}${verdicts.length ? `, ${verdicts.length} project verdict(s)` : ''}${drifted.length ? ', persona drift' : ''}`, text: `${lines.join('\n')}\n` }
}
