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
import { admittedStep, auditStep, authenticatedStep, recapStep, type AuditRow, type StepContext } from './timeline-steps'
import { draftSteps, failedSpawnStep, lessonStep, queuedStep, scannedStep } from './timeline-row-steps'

export interface TimelineDeps {
  db: Db
  /** The lessons a spawn produced (the spawn engine's records: by the loop, or by a person from the spawn). */
  producedLessons: (spawnId: string) => Promise<ProducedLesson[]>
}

type Step = TimelineStepView

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
    db
      .select({
        id: atlasSpawns.id,
        iteration: atlasSpawns.iteration,
        status: atlasSpawns.status,
        outcome: atlasSpawns.outcome,
        reason: atlasSpawns.reason,
        queuedAt: atlasSpawns.queuedAt,
        queuedBy: atlasSpawns.queuedBy,
        endedAt: atlasSpawns.endedAt,
        taskId: atlasSpawns.taskId,
        agentCodename: atlasSpawns.agentCodename,
        carriedErrors: atlasSpawns.carriedErrors,
      })
      .from(atlasSpawns)
      .where(eq(atlasSpawns.messageId, messageId))
      .orderBy(asc(atlasSpawns.queuedAt), asc(atlasSpawns.iteration)),
    db.select().from(atlasReplyDrafts).where(eq(atlasReplyDrafts.messageId, messageId)).orderBy(asc(atlasReplyDrafts.id)),
  ])
  const tenantIds = [...new Set(audit.map(entry => entry.details.tenantId).filter((id): id is string => typeof id === 'string'))]
  const tenants = tenantIds.length
    ? await db.select({ id: clients.id, name: clients.name }).from(clients).where(inArray(clients.id, tenantIds))
    : []
  const context: StepContext = {
    tenants: new Map(tenants.map(t => [t.id, t.name])),
    spawnAgents: new Map(spawns.map(s => [s.id, s.agentCodename])),
  }

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
      steps.push(admittedStep(step!, entry, row.admissionReason))
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
