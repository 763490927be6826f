// The message timeline's steps, one source row at a time: an atlas_audit entry (the pipeline's,
// the spawn engine's and the people's trail), the sender's verdict, the antivirus verdicts, a
// spawn, a reply draft, a lesson. Pure functions: timeline.ts reads the rows and orders the steps.
import type { SenderAuth } from '#db/schema/atlas'
import type { TimelineActorKind, TimelineStepView } from './timeline-schema'
import { detailed, labelled, titled } from './timeline-words'

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

export const spawnLink = (spawnId: string, iteration?: unknown) => ({
  ...(typeof iteration === 'number' ? labelled(`Spawn ${iteration}`, 'spawn', { iteration }) : labelled('The spawn', 'theSpawn')),
  to: `/hub/atlas/spawns/${spawnId}`,
})
export const lessonLink = (lessonId: unknown, title?: string | null) => ({
  ...(title ? labelled(`Lesson: ${title}`, 'lesson', { title }) : labelled(`Lesson #${String(lessonId)}`, 'lessonNumber', { id: String(lessonId) })),
  to: `/hub/learning?lesson=${String(lessonId)}`,
})

/** The work records that live in a registry, each named by its own key (the French words differ in gender). */
const REGISTRY_KINDS = ['run', 'question', 'negociation', 'conseil'] as const

/** The page of a work record: a chantier has its own, the other kinds live in their registry. */
export function workRecordLink(kind: unknown, id: unknown): { label: string, to: string } | null {
  if (typeof kind !== 'string' || typeof id !== 'string') return null
  if (kind === 'chantier') return { ...labelled('The chantier', 'chantier'), to: `/hub/worksites/chantiers/${id}` }
  if ((REGISTRY_KINDS as readonly string[]).includes(kind)) return { ...labelled(`The ${kind}`, kind), to: `/hub/worksites/registries/${kind}s/${id}` }
  return null
}

/** "on host-1 · model sonnet": where and with what a spawn started, each part if known. */
function startedDetail(host: string | null, model: string | null) {
  if (host && model) return detailed(`on ${host} · model ${model}`, 'onHostModel', { host, model })
  if (host) return detailed(`on ${host}`, 'onHost', { host })
  if (model) return detailed(`model ${model}`, 'model', { model })
  return { detail: null }
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
  const intent = String(d.intent ?? '?')
  const confidence = typeof d.confidence === 'number' ? d.confidence.toFixed(2) : null
  const reasoning = text(d.reasoning)
  const tenantSaid = tenant ? `tenant ${tenant}` : 'no tenant'
  const detailKey = `${tenant ? 'tenant' : 'noTenant'}${reasoning ? 'Reasoning' : ''}`
  return base(entry, {
    kind: 'classified',
    ...(confidence
      ? titled(`Classified: ${intent} (confidence ${confidence})`, 'classifiedConfidence', { intent, confidence })
      : titled(`Classified: ${intent}`, 'classified', { intent })),
    ...detailed(reasoning ? `${tenantSaid} · ${reasoning}` : tenantSaid, detailKey, { ...(tenant ? { tenant } : {}), ...(reasoning ? { reasoning } : {}) }),
    // The model decided; the collector only asked it. A rule (no model) leaves the collector as actor.
    ...(model ? { actor: text(d.provider) ? `${String(d.provider)} / ${model}` : model, actorKind: 'model' as const } : {}),
    outcome: d.uncertain || d.forcedNoise ? 'warning' : 'done',
  })
}

function spawnEnded(entry: AuditRow, context: StepContext): Step {
  const d = entry.details
  const agent = text(d.spawnId) ? context.spawnAgents.get(String(d.spawnId)) ?? null : null
  const commits = Array.isArray(d.commits) ? d.commits.length : 0
  const iteration = String(d.iteration ?? '?')
  const status = String(d.status ?? '?')
  const cost = typeof d.costUsd === 'number' ? d.costUsd.toFixed(4) : null
  return base(entry, {
    kind: 'iteration',
    ...titled(`Iteration ${iteration}: the agent ended with status "${status}"`, 'spawn_completed', { iteration, status }),
    ...(cost ? detailed(`${commits} commit(s) · $${cost}`, 'commitsCost', { commits, cost }) : detailed(`${commits} commit(s)`, 'commits', { commits })),
    ...(agent ? { actor: agent, actorKind: 'agent' as const } : {}),
    // The result contract says "ok" when the work is done (spawn/core/contract.ts).
    outcome: String(d.status ?? '').toLowerCase() === 'ok' ? 'done' : 'warning',
  })
}

/** One audit entry as a step; null for book-keeping nobody needs in the story (a skipped, locked cycle). */
export function auditStep(entry: AuditRow, context: StepContext): Step | null {
  const d = entry.details
  switch (entry.action) {
    case 'received': {
      const values = { mailbox: String(d.mailbox ?? '?'), attachments: String(d.attachments ?? 0) }
      return base(entry, { kind: 'received', ...titled('Received', 'received'), ...detailed(`from mailbox ${values.mailbox} · ${values.attachments} attachment(s)`, 'received', values) })
    }
    case 'quarantined': return base(entry, { kind: 'received', ...titled('Received and quarantined', 'quarantined'), detail: text(d.reason), outcome: 'failed' })
    case 'blocked_unsafe': return base(entry, { kind: 'scanned', ...titled('Blocked: an attachment is not clean', 'blocked_unsafe'), detail: text(d.reason), outcome: 'failed' })
    case 'ocr_extracted': {
      const values = { characters: String(d.characters), images: String(d.images) }
      return base(entry, { kind: 'ocr', ...titled('Text read from the images', 'ocr_extracted'), ...detailed(`${values.characters} characters from ${values.images} image(s)`, 'ocr', values) })
    }
    case 'classified': return classified(entry, context)
    case 'classification_failed': {
      const values = { reason: String(d.reason ?? ''), attempt: String(d.attempt), maxAttempts: String(d.maxAttempts) }
      const detail = detailed(`${values.reason} (attempt ${values.attempt} of ${values.maxAttempts})`, 'attempt', values)
      return base(entry, { kind: 'classified', ...titled('Classification failed', 'classification_failed'), ...detail, outcome: 'failed' })
    }
    case 'classification_uncertain':
    case 'noise_override_founder_attachment':
    case 'existing_client_guard':
      return base(entry, { kind: 'guardrail', ...titled(`Guardrail: ${entry.action.replace(/_/g, ' ')}`, entry.action), outcome: 'warning' })
    case 'awaiting_approval': return base(entry, { kind: 'admission', ...titled('Waiting for a person\'s approval', 'awaiting_approval'), detail: text(d.reason), outcome: 'waiting' })
    case 'spawn_approved': {
      const by = String(d.by ?? entry.actor)
      return base(entry, { kind: 'admission', ...titled(`Approved by ${by}`, 'spawn_approved', { by }), detail: text(d.note) })
    }
    case 'spawn_rejected': {
      const by = String(d.by ?? entry.actor)
      return base(entry, { kind: 'admission', ...titled(`Rejected by ${by}`, 'spawn_rejected', { by }), detail: text(d.note), outcome: 'failed' })
    }
    case 'materialised': {
      const link = workRecordLink(d.kind, d.id)
      const values = { kind: String(d.kind), action: String(d.action) }
      const detail = d.on === 'approval' ? detailed('on approval', 'onApproval') : { detail: null }
      return base(entry, { kind: 'work_record', ...titled(`Work record: ${values.kind} ${values.action}`, 'materialised', values), ...detail, links: link ? [link] : [] })
    }
    case 'chantier_confirmed':
    case 'chantier_promoted':
    case 'chantier_rejected':
    case 'record_resolved':
    case 'record_cancelled': {
      const link = workRecordLink(text(d.chantierId) ? 'chantier' : d.kind, d.chantierId ?? d.id)
      return base(entry, {
        kind: 'work_record',
        ...titled(entry.action.replace(/_/g, ' ').replace(/^./, c => c.toUpperCase()), entry.action),
        detail: text(d.reason),
        links: link ? [link] : [],
        outcome: entry.action.endsWith('rejected') || entry.action.endsWith('cancelled') ? 'failed' : 'done',
      })
    }
    case 'spawn_started': {
      const iteration = String(d.iteration ?? '?')
      return base(entry, { kind: 'spawned', ...titled(`Spawn ${iteration} started`, 'spawn_started', { iteration }), ...startedDetail(text(d.host), text(d.model)) })
    }
    case 'spawn_completed': return spawnEnded(entry, context)
    case 'spawn_failed': {
      const title = d.iteration ? titled(`Spawn ${String(d.iteration)} failed`, 'spawn_failed', { iteration: String(d.iteration) }) : titled('Spawn failed', 'spawnFailed')
      const next = String(d.next ?? '')
      const detail = text(d.reason) === 'worker_lost' ? detailed(`the worker was lost: ${next}`, 'workerLost', { next }) : { detail: text(d.detail) ?? text(d.reason) }
      return base(entry, { kind: 'iteration', ...title, ...detail, outcome: 'failed' })
    }
    case 'deployed': {
      const deploy = String(d.deploy ?? 'default')
      const seconds = typeof d.durationMs === 'number' ? (d.durationMs / 1000).toFixed(1) : null
      return base(entry, {
        kind: 'deployed',
        ...(d.ok ? titled('Deployed', 'deployed') : titled('The deploy failed', 'deployFailed')),
        ...(seconds ? detailed(`${deploy} in ${seconds} s`, 'deployedIn', { deploy, seconds }) : { detail: deploy }),
        outcome: d.ok ? 'done' : 'failed',
      })
    }
    case 'qa_passed': {
      const routes = Array.isArray(d.routes) ? d.routes : null
      const detail = routes ? detailed(`${routes.length} route(s): ${routes.join(', ')}`, 'routes', { count: routes.length, routes: routes.join(', ') }) : { detail: null }
      return base(entry, { kind: 'qa', ...titled('QA passed', 'qa_passed'), ...detail })
    }
    case 'qa_failed': {
      const errors = Array.isArray(d.errors) ? d.errors.length : 0
      return base(entry, { kind: 'qa', ...titled('QA failed', 'qa_failed'), ...detailed(`${errors} error(s)`, 'errors', { errors }), outcome: 'failed' })
    }
    case 'respawn': return null
    case 'spawn_skipped_lock_held': return null
    case 'escalated': return base(entry, { kind: 'escalated', ...titled('Escalated to a person', 'escalated'), detail: text(d.reason), outcome: 'failed' })
    case 'actioned': {
      const intent = String(d.intent ?? 'done')
      const qa = text(d.qa)
      return base(entry, { kind: 'actioned', ...titled(`Actioned (${intent})`, 'actioned', { intent }), ...(qa ? detailed(`QA ${qa}`, 'qa', { qa }) : { detail: null }) })
    }
    case 'lesson_recorded': return base(entry, { kind: 'lesson', ...lessonTitle(d.kind, String(d.title ?? '')), links: [...(text(d.spawnId) ? [spawnLink(String(d.spawnId))] : []), lessonLink(d.lessonId, text(d.title))] })
    case 'reclassify_requested': {
      const previousStatus = String(d.previousStatus ?? '?')
      return base(entry, { kind: 'reclassify', ...titled('Re-classification asked', 'reclassify_requested'), ...detailed(`was ${previousStatus}`, 'was', { previousStatus }) })
    }
    case 'mail_refused_external': {
      const title = titled('An e-mail outside the team was refused', 'mail_refused_external')
      return base(entry, { kind: 'mail_refused', ...title, detail: Array.isArray(d.refused) ? d.refused.join(', ') : null, outcome: 'failed' })
    }
    // An action the timeline does not know yet: its name, as written.
    default: return base(entry, { kind: 'other', title: entry.action.replace(/_/g, ' ') })
  }
}

/** "Victory recorded: …" or "Scar recorded: …", from the trail or the spawn engine's records. */
export function lessonTitle(kind: unknown, title: string) {
  return kind === 'victory' ? titled(`Victory recorded: ${title}`, 'victoryRecorded', { title }) : titled(`Scar recorded: ${title}`, 'scarRecorded', { title })
}

/** The automatic admission, told beside the classification it came with: its time, spawn and links, none of its words. */
export function admittedStep(classified: Step, entry: AuditRow, reason: string | null): Step {
  const { at, spawnId, links } = classified
  return {
    id: `admitted:${entry.id}`, kind: 'admission', at, ...titled('Admitted automatically', 'admitted'), detail: reason,
    actor: entry.actor, actorKind: actorKindOf(entry.actor), outcome: 'done', spawnId, links,
  }
}

/** The recap e-mail to the team, told by the `actioned` entry that sent it (its `summary`: "sent to …" or "not sent: …"). */
export function recapStep(entry: AuditRow): Step | null {
  const summary = text(entry.details.summary)
  if (entry.action !== 'actioned' || !summary) return null
  const sent = summary.startsWith('sent')
  const title = sent ? titled('Recap sent to the team', 'recapSent') : titled('Recap not sent', 'recapNotSent')
  return { ...base(entry, { kind: 'recap', ...title, detail: summary, outcome: sent ? 'done' : 'warning' }), id: `recap:${entry.id}` }
}

function authTitle(verdict: string, domain: string | null) {
  if (verdict === 'pass') return domain ? titled(`Sender authenticated (${domain})`, 'authenticatedDomain', { domain }) : titled('Sender authenticated', 'authenticated')
  return verdict === 'fail' ? titled('Sender authentication failed', 'authenticationFailed') : titled('Sender not authenticated', 'notAuthenticated')
}

/** The three checks' results, then the flags (the verifier's own words, shown as written). */
function authDetail(auth: SenderAuth | null) {
  if (!auth) return detailed('no verdict recorded', 'noVerdict')
  const results = { dkim: auth.results.dkim, spf: auth.results.spf, dmarc: auth.results.dmarc }
  const said = `DKIM ${results.dkim}, SPF ${results.spf}, DMARC ${results.dmarc}`
  if (auth.flags.length === 0) return detailed(said, 'authResults', results)
  const flags = auth.flags.join(' · ')
  return detailed(`${said} · ${flags}`, 'authResultsFlags', { ...results, flags })
}

/** The sender's verdict, taken when the message was stored (told right after `received`). */
export function authenticatedStep(received: AuditRow, auth: SenderAuth | null): Step {
  const verdict = auth?.verdict ?? 'none'
  return {
    ...base(received, {
      kind: 'authenticated',
      ...authTitle(verdict, auth?.domain ?? null),
      ...authDetail(auth),
      outcome: verdict === 'pass' ? 'done' : verdict === 'fail' ? 'failed' : 'warning',
    }),
    id: `authenticated:${received.id}`,
  }
}
