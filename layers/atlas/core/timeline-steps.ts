// The message timeline's steps, one source row at a time: an atlas_audit entry (the pipeline's,
// the spawn engine's and the people's trail), the sender's verdict, the antivirus verdicts, a
// spawn, a reply draft, a lesson. Pure functions: timeline.ts reads the rows and orders the steps.
import type { SenderAuth } from '#db/schema/atlas'
import type { TimelineActorKind, TimelineStepView } from './timeline-schema'

export interface AuditRow { id: number, at: Date, action: string, actor: string, details: Record<string, unknown> }

/** What the steps need to name things: the tenants by id, the agent each spawn was routed to. */
export interface StepContext {
  tenants: Map<string, string>
  spawnAgents: Map<string, string | null>
}

type Step = TimelineStepView

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null)

/** An e-mail is a person; the automates are named (atlas-collect, atlas-spawn-worker…). */
export function actorKindOf(actor: string): TimelineActorKind {
  return actor.includes('@') ? 'person' : 'automate'
}

export const spawnLink = (spawnId: string, iteration?: unknown) => ({ label: typeof iteration === 'number' ? `Spawn ${iteration}` : 'The spawn', to: `/hub/atlas/spawns/${spawnId}` })
export const lessonLink = (lessonId: unknown, title?: string | null) => ({ label: title ? `Lesson: ${title}` : `Lesson #${String(lessonId)}`, to: `/hub/learning?lesson=${String(lessonId)}` })

/** The page of a work record: a chantier has its own, the other kinds live in their registry. */
export function workRecordLink(kind: unknown, id: unknown): { label: string, to: string } | null {
  if (typeof kind !== 'string' || typeof id !== 'string') return null
  if (kind === 'chantier') return { label: 'The chantier', to: `/hub/worksites/chantiers/${id}` }
  if (['run', 'question', 'negociation', 'conseil'].includes(kind)) return { label: `The ${kind}`, to: `/hub/worksites/registries/${kind}s/${id}` }
  return null
}

function base(entry: AuditRow, fields: Pick<Step, 'kind' | 'title'> & Partial<Step>): Step {
  const spawnId = text(entry.details.spawnId)
  return {
    id: `audit:${entry.id}`,
    at: entry.at.toISOString(),
    detail: null,
    actor: entry.actor,
    actorKind: actorKindOf(entry.actor),
    outcome: 'done',
    spawnId,
    links: spawnId ? [spawnLink(spawnId, entry.details.iteration)] : [],
    ...fields,
  }
}

function classified(entry: AuditRow, context: StepContext): Step {
  const d = entry.details
  const model = text(d.model)
  const tenant = text(d.tenantId) ? context.tenants.get(String(d.tenantId)) ?? null : null
  const confidence = typeof d.confidence === 'number' ? ` (confidence ${d.confidence.toFixed(2)})` : ''
  return base(entry, {
    kind: 'classified',
    title: `Classified: ${String(d.intent ?? '?')}${confidence}`,
    detail: [tenant ? `tenant ${tenant}` : 'no tenant', text(d.reasoning)].filter(Boolean).join(' · '),
    // The model decided; the collector only asked it. A rule (no model) leaves the collector as actor.
    ...(model ? { actor: text(d.provider) ? `${String(d.provider)} / ${model}` : model, actorKind: 'model' as const } : {}),
    outcome: d.uncertain || d.forcedNoise ? 'warning' : 'done',
  })
}

function spawnEnded(entry: AuditRow, context: StepContext): Step {
  const d = entry.details
  const agent = text(d.spawnId) ? context.spawnAgents.get(String(d.spawnId)) ?? null : null
  const commits = Array.isArray(d.commits) ? d.commits.length : 0
  return base(entry, {
    kind: 'iteration',
    title: `Iteration ${String(d.iteration ?? '?')}: the agent ended with status "${String(d.status ?? '?')}"`,
    detail: `${commits} commit(s)${typeof d.costUsd === 'number' ? ` · $${d.costUsd.toFixed(4)}` : ''}`,
    ...(agent ? { actor: agent, actorKind: 'agent' as const } : {}),
    // The result contract says "ok" when the work is done (spawn/core/contract.ts).
    outcome: String(d.status ?? '').toLowerCase() === 'ok' ? 'done' : 'warning',
  })
}

/** One audit entry as a step; null for book-keeping nobody needs in the story (a skipped, locked cycle). */
export function auditStep(entry: AuditRow, context: StepContext): Step | null {
  const d = entry.details
  switch (entry.action) {
    case 'received': return base(entry, { kind: 'received', title: 'Received', detail: `from mailbox ${String(d.mailbox ?? '?')} · ${String(d.attachments ?? 0)} attachment(s)` })
    case 'quarantined': return base(entry, { kind: 'received', title: 'Received and quarantined', detail: text(d.reason), outcome: 'failed' })
    case 'blocked_unsafe': return base(entry, { kind: 'scanned', title: 'Blocked: an attachment is not clean', detail: text(d.reason), outcome: 'failed' })
    case 'ocr_extracted': return base(entry, { kind: 'ocr', title: 'Text read from the images', detail: `${String(d.characters)} characters from ${String(d.images)} image(s)` })
    case 'classified': return classified(entry, context)
    case 'classification_failed': return base(entry, { kind: 'classified', title: 'Classification failed', detail: `${String(d.reason ?? '')} (attempt ${String(d.attempt)} of ${String(d.maxAttempts)})`, outcome: 'failed' })
    case 'classification_uncertain':
    case 'noise_override_founder_attachment':
    case 'existing_client_guard':
      return base(entry, { kind: 'guardrail', title: `Guardrail: ${entry.action.replace(/_/g, ' ')}`, outcome: 'warning' })
    case 'awaiting_approval': return base(entry, { kind: 'admission', title: 'Waiting for a person\'s approval', detail: text(d.reason), outcome: 'waiting' })
    case 'spawn_approved': return base(entry, { kind: 'admission', title: `Approved by ${String(d.by ?? entry.actor)}`, detail: text(d.note) })
    case 'spawn_rejected': return base(entry, { kind: 'admission', title: `Rejected by ${String(d.by ?? entry.actor)}`, detail: text(d.note), outcome: 'failed' })
    case 'materialised': {
      const link = workRecordLink(d.kind, d.id)
      return base(entry, { kind: 'work_record', title: `Work record: ${String(d.kind)} ${String(d.action)}`, detail: d.on === 'approval' ? 'on approval' : null, links: link ? [link] : [] })
    }
    case 'chantier_confirmed':
    case 'chantier_promoted':
    case 'chantier_rejected':
    case 'record_resolved':
    case 'record_cancelled': {
      const link = workRecordLink(text(d.chantierId) ? 'chantier' : d.kind, d.chantierId ?? d.id)
      return base(entry, { kind: 'work_record', title: entry.action.replace(/_/g, ' ').replace(/^./, c => c.toUpperCase()), detail: text(d.reason), links: link ? [link] : [], outcome: entry.action.endsWith('rejected') || entry.action.endsWith('cancelled') ? 'failed' : 'done' })
    }
    case 'spawn_started': return base(entry, { kind: 'spawned', title: `Spawn ${String(d.iteration ?? '?')} started`, detail: [text(d.host) && `on ${String(d.host)}`, text(d.model) && `model ${String(d.model)}`].filter(Boolean).join(' · ') || null })
    case 'spawn_completed': return spawnEnded(entry, context)
    case 'spawn_failed': return base(entry, { kind: 'iteration', title: `Spawn ${d.iteration ? `${String(d.iteration)} ` : ''}failed`, detail: text(d.reason) === 'worker_lost' ? `the worker was lost: ${String(d.next ?? '')}` : text(d.detail) ?? text(d.reason), outcome: 'failed' })
    case 'deployed': return base(entry, { kind: 'deployed', title: d.ok ? 'Deployed' : 'The deploy failed', detail: `${String(d.deploy ?? 'default')}${typeof d.durationMs === 'number' ? ` in ${(d.durationMs / 1000).toFixed(1)} s` : ''}`, outcome: d.ok ? 'done' : 'failed' })
    case 'qa_passed': return base(entry, { kind: 'qa', title: 'QA passed', detail: Array.isArray(d.routes) ? `${d.routes.length} route(s): ${d.routes.join(', ')}` : null })
    case 'qa_failed': return base(entry, { kind: 'qa', title: 'QA failed', detail: `${Array.isArray(d.errors) ? d.errors.length : 0} error(s)`, outcome: 'failed' })
    case 'respawn': return null
    case 'spawn_skipped_lock_held': return null
    case 'escalated': return base(entry, { kind: 'escalated', title: 'Escalated to a person', detail: text(d.reason), outcome: 'failed' })
    case 'actioned': return base(entry, { kind: 'actioned', title: `Actioned (${String(d.intent ?? 'done')})`, detail: text(d.qa) ? `QA ${String(d.qa)}` : null })
    case 'lesson_recorded': return base(entry, { kind: 'lesson', title: `${d.kind === 'victory' ? 'Victory' : 'Scar'} recorded: ${String(d.title ?? '')}`, links: [...(text(d.spawnId) ? [spawnLink(String(d.spawnId))] : []), lessonLink(d.lessonId, text(d.title))] })
    case 'reclassify_requested': return base(entry, { kind: 'reclassify', title: 'Re-classification asked', detail: `was ${String(d.previousStatus ?? '?')}` })
    case 'mail_refused_external': return base(entry, { kind: 'mail_refused', title: 'An e-mail outside the team was refused', detail: Array.isArray(d.refused) ? d.refused.join(', ') : null, outcome: 'failed' })
    default: return base(entry, { kind: 'other', title: entry.action.replace(/_/g, ' ') })
  }
}

/** The recap e-mail to the team, told by the `actioned` entry that sent it (its `summary`: "sent to …" or "not sent: …"). */
export function recapStep(entry: AuditRow): Step | null {
  const summary = text(entry.details.summary)
  if (entry.action !== 'actioned' || !summary) return null
  return { ...base(entry, { kind: 'recap', title: summary.startsWith('sent') ? 'Recap sent to the team' : 'Recap not sent', detail: summary, outcome: summary.startsWith('sent') ? 'done' : 'warning' }), id: `recap:${entry.id}` }
}

/** The sender's verdict, taken when the message was stored (told right after `received`). */
export function authenticatedStep(received: AuditRow, auth: SenderAuth | null): Step {
  const verdict = auth?.verdict ?? 'none'
  return {
    ...base(received, {
      kind: 'authenticated',
      title: verdict === 'pass' ? `Sender authenticated${auth?.domain ? ` (${auth.domain})` : ''}` : verdict === 'fail' ? 'Sender authentication failed' : 'Sender not authenticated',
      detail: auth ? [`DKIM ${auth.results.dkim}, SPF ${auth.results.spf}, DMARC ${auth.results.dmarc}`, ...auth.flags].join(' · ') : 'no verdict recorded',
      outcome: verdict === 'pass' ? 'done' : verdict === 'fail' ? 'failed' : 'warning',
    }),
    id: `authenticated:${received.id}`,
  }
}
