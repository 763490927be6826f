// One message's whole story in order (issue 36, Deliver 4): received, the sender's verdict,
// the antivirus, the classification (intent, tenant, model), the admission (automatic, or who
// approved and when), the work record, each spawn and iteration, deploy, QA, the recap to the
// team, the reply draft and the lessons — each step with who or what did it, and links to the
// spawn, the work record and the lessons. Read from atlas's tables and the spawn engine's
// (atlas_spawns, rank 4); the lessons a spawn produced come through the spawn engine's reader
// (spawn-loop-records.ts), so atlas never reaches into learning (rank 6).
import { asc, eq, inArray } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAttachments, atlasAudit, atlasInbox, atlasMessages, atlasReplyDrafts } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { clients } from '#db/schema/clients'
import type { ProducedLesson } from '#layers/spawn/core/spawn-loop-records'
import type { MessageTimelineView, TimelineStepView } from './timeline-schema'
import { actorKindOf, auditStep, authenticatedStep, lessonLink, recapStep, spawnLink, type AuditRow, type StepContext } from './timeline-steps'

export interface TimelineDeps {
  db: Db
  /** The lessons a spawn produced (the spawn engine's records: by the loop, or by a person from the spawn). */
  producedLessons: (spawnId: string) => Promise<ProducedLesson[]>
}

type Step = TimelineStepView
type SpawnRow = Pick<typeof atlasSpawns.$inferSelect, 'id' | 'iteration' | 'status' | 'outcome' | 'reason' | 'queuedAt' | 'queuedBy' | 'endedAt' | 'taskId' | 'agentCodename' | 'carriedErrors'>

function scannedStep(attachments: Array<typeof atlasAttachments.$inferSelect>): Step | null {
  const scanned = attachments.filter(a => a.scannedAt !== null)
  if (scanned.length === 0) return null
  const at = new Date(Math.max(...scanned.map(a => a.scannedAt!.getTime())))
  const bad = scanned.filter(a => a.verdict !== 'clean')
  const scanner = scanned.find(a => a.scanner)?.scanner ?? 'the antivirus'
  return {
    id: `scanned:${scanned[0]!.messageId}`,
    kind: 'scanned',
    at: at.toISOString(),
    title: bad.length === 0 ? `Attachments scanned: ${scanned.length} clean` : `Attachments scanned: ${bad.length} of ${scanned.length} not clean`,
    detail: bad.length === 0 ? null : bad.map(a => `${a.filename ?? `attachment ${a.position}`}: ${a.verdict}${a.signature ? ` (${a.signature})` : ''}`).join('; '),
    actor: scanner,
    actorKind: 'scanner',
    outcome: bad.length === 0 ? 'done' : 'failed',
    spawnId: null,
    links: [],
  }
}

function queuedStep(spawn: SpawnRow): Step {
  const carried = spawn.carriedErrors?.length ?? 0
  return {
    id: `spawn:${spawn.id}`,
    kind: 'spawn_queued',
    at: spawn.queuedAt.toISOString(),
    title: spawn.iteration === 1 ? 'Spawn 1 queued' : `Re-spawn ${spawn.iteration} queued after QA`,
    detail: [spawn.agentCodename ? `agent ${spawn.agentCodename}` : null, carried ? `${carried} QA error(s) carried` : null].filter(Boolean).join(' · ') || null,
    actor: spawn.queuedBy,
    actorKind: actorKindOf(spawn.queuedBy),
    outcome: 'done',
    spawnId: spawn.id,
    links: [spawnLink(spawn.id, spawn.iteration), ...(spawn.taskId ? [{ label: 'The task', to: `/hub/worksites/tasks/${spawn.taskId}` }] : [])],
  }
}

/** A spawn that ended badly without its audit entry (an older trail): told from its own row. */
function failedSpawnStep(spawn: SpawnRow): Step {
  return {
    id: `spawn-ended:${spawn.id}`,
    kind: 'iteration',
    at: (spawn.endedAt ?? spawn.queuedAt).toISOString(),
    title: `Spawn ${spawn.iteration} ${spawn.status}${spawn.outcome ? ` (${spawn.outcome})` : ''}`,
    detail: spawn.reason,
    actor: spawn.agentCodename ?? 'the agent',
    actorKind: 'agent',
    outcome: 'failed',
    spawnId: spawn.id,
    links: [spawnLink(spawn.id, spawn.iteration)],
  }
}

function draftSteps(draft: typeof atlasReplyDrafts.$inferSelect): Step[] {
  const written: Step = {
    id: `draft:${draft.id}`,
    kind: 'reply_draft',
    at: draft.createdAt.toISOString(),
    title: draft.status === 'discarded' ? 'Reply draft written (discarded since)' : 'Reply draft written',
    detail: draft.body.length > 160 ? `${draft.body.slice(0, 160)}…` : draft.body,
    actor: draft.createdBy,
    actorKind: actorKindOf(draft.createdBy),
    outcome: draft.status === 'discarded' ? 'warning' : draft.status === 'sent' ? 'done' : 'waiting',
    spawnId: null,
    links: [],
  }
  if (draft.status !== 'sent' || !draft.sentAt) return [written]
  const by = draft.sentBy ?? 'a person'
  return [written, { ...written, id: `draft-sent:${draft.id}`, at: draft.sentAt.toISOString(), title: 'Reply sent to the sender', detail: null, actor: by, actorKind: actorKindOf(by), outcome: 'done' }]
}

function lessonStep(lesson: ProducedLesson, spawn: SpawnRow): Step {
  const by = lesson.recordedBy ?? 'atlas-spawn-worker'
  return {
    id: `lesson:${lesson.lessonId}`,
    kind: 'lesson',
    at: lesson.createdAt,
    title: `${lesson.kind === 'victory' ? 'Victory' : 'Scar'} recorded: ${lesson.title}`,
    detail: lesson.agent ? `for agent ${lesson.agent}` : 'a global lesson',
    actor: by,
    actorKind: actorKindOf(by),
    outcome: 'done',
    spawnId: spawn.id,
    links: [spawnLink(spawn.id, spawn.iteration), lessonLink(lesson.lessonId, lesson.title)],
  }
}

export async function messageTimeline(deps: TimelineDeps, messageId: number): Promise<MessageTimelineView | null> {
  const { db } = deps
  const [row] = await db.select({
    receivedAt: atlasMessages.receivedAt, mailbox: atlasMessages.mailbox, senderAuth: atlasMessages.senderAuth,
    status: atlasInbox.status, admissionReason: atlasInbox.admissionReason,
  }).from(atlasMessages).innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id)).where(eq(atlasMessages.id, messageId))
  if (!row) return null
  const [audit, attachments, spawns, drafts] = await Promise.all([
    db.select().from(atlasAudit).where(eq(atlasAudit.messageId, messageId)).orderBy(asc(atlasAudit.id)),
    db.select().from(atlasAttachments).where(eq(atlasAttachments.messageId, messageId)),
    db.select({
      id: atlasSpawns.id, iteration: atlasSpawns.iteration, status: atlasSpawns.status, outcome: atlasSpawns.outcome, reason: atlasSpawns.reason, queuedAt: atlasSpawns.queuedAt,
      queuedBy: atlasSpawns.queuedBy, endedAt: atlasSpawns.endedAt, taskId: atlasSpawns.taskId, agentCodename: atlasSpawns.agentCodename, carriedErrors: atlasSpawns.carriedErrors,
    }).from(atlasSpawns).where(eq(atlasSpawns.messageId, messageId)).orderBy(asc(atlasSpawns.queuedAt), asc(atlasSpawns.iteration)),
    db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, messageId)).orderBy(asc(atlasReplyDrafts.id)),
  ])
  const tenantIds = [...new Set(audit.map(entry => entry.details.tenantId).filter((id): id is string => typeof id === 'string'))]
  const tenants = tenantIds.length ? await db.select({ id: clients.id, name: clients.name }).from(clients).where(inArray(clients.id, tenantIds)) : []
  const context: StepContext = { tenants: new Map(tenants.map(t => [t.id, t.name])), spawnAgents: new Map(spawns.map(s => [s.id, s.agentCodename])) }

  const steps: Step[] = []
  const entries: AuditRow[] = audit
  // An older trail without its `received` entry still starts with the message's arrival.
  if (!entries.some(entry => entry.action === 'received' || entry.action === 'quarantined')) {
    const arrival: AuditRow = { id: 0, at: row.receivedAt, action: 'received', actor: `mailbox ${row.mailbox}`, details: { mailbox: row.mailbox } }
    steps.push({ ...auditStep(arrival, context)!, id: `received:${messageId}`, actorKind: 'automate' }, { ...authenticatedStep(arrival, row.senderAuth), id: `authenticated:${messageId}` })
  }
  for (const entry of entries) {
    const step = auditStep(entry, context)
    if (step) steps.push(step)
    if (entry.action === 'received' || entry.action === 'quarantined') steps.push(authenticatedStep(entry, row.senderAuth))
    if (entry.action === 'classified' && entry.details.admission === 'auto') {
      steps.push({ ...step!, id: `admitted:${entry.id}`, kind: 'admission', title: 'Admitted automatically', detail: row.admissionReason, actor: entry.actor, actorKind: actorKindOf(entry.actor), outcome: 'done' })
    }
    const recap = recapStep(entry)
    if (recap) steps.push(recap)
  }
  const scanned = scannedStep(attachments)
  if (scanned) steps.push(scanned)
  const failedAudits = new Set(audit.filter(entry => entry.action === 'spawn_failed').map(entry => entry.details.spawnId))
  const handRecorded = new Set(audit.filter(entry => entry.action === 'lesson_recorded').map(entry => entry.details.lessonId))
  for (const spawn of spawns) {
    steps.push(queuedStep(spawn))
    if ((spawn.status === 'failed' || spawn.status === 'lost') && !failedAudits.has(spawn.id)) steps.push(failedSpawnStep(spawn))
    for (const lesson of await deps.producedLessons(spawn.id)) {
      if (!handRecorded.has(lesson.lessonId)) steps.push(lessonStep(lesson, spawn))
    }
  }
  for (const draft of drafts) steps.push(...draftSteps(draft))

  // In time order; steps of one instant (written in one transaction) keep the order they were recorded in.
  const ordered = steps.map((step, index) => ({ step, index, time: Date.parse(step.at) }))
    .sort((a, b) => a.time - b.time || a.index - b.index)
    .map(({ step }) => step)
  return { messageId, status: row.status, steps: ordered }
}
