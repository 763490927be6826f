// The timeline's steps told from the tables' own rows, not from the trail: the antivirus
// verdicts, each spawn queued (and one that ended badly without its audit entry), the reply
// draft and the lessons a spawn produced. Pure functions: timeline.ts reads the rows.
import type { atlasAttachments, atlasReplyDrafts } from '#db/schema/atlas'
import type { atlasSpawns } from '#db/schema/atlas-spawn'
import type { ProducedLesson } from '#layers/spawn/core/spawn-loop-records'
import type { TimelineStepView } from './timeline-schema'
import { actorKindOf, lessonLink, lessonTitle, spawnLink } from './timeline-steps'
import { detailed, labelled, titled } from './timeline-words'

type Step = TimelineStepView
export type SpawnRow = Pick<typeof atlasSpawns.$inferSelect, 'id' | 'iteration' | 'status' | 'outcome' | 'reason' | 'queuedAt' | 'queuedBy' | 'endedAt' | 'taskId' | 'agentCodename' | 'carriedErrors'>

export function scannedStep(attachments: Array<typeof atlasAttachments.$inferSelect>): Step | null {
  const scanned = attachments.filter(a => a.scannedAt !== null)
  if (scanned.length === 0) return null
  const at = new Date(Math.max(...scanned.map(a => a.scannedAt!.getTime())))
  const bad = scanned.filter(a => a.verdict !== 'clean')
  const scanner = scanned.find(a => a.scanner)?.scanner ?? 'the antivirus'
  return {
    id: `scanned:${scanned[0]!.messageId}`,
    kind: 'scanned',
    at: at.toISOString(),
    ...(bad.length === 0
      ? titled(`Attachments scanned: ${scanned.length} clean`, 'scannedClean', { count: scanned.length })
      : titled(`Attachments scanned: ${bad.length} of ${scanned.length} not clean`, 'scannedNotClean', { bad: bad.length, count: scanned.length })),
    detail: bad.length === 0 ? null : bad.map(a => `${a.filename ?? `attachment ${a.position}`}: ${a.verdict}${a.signature ? ` (${a.signature})` : ''}`).join('; '),
    actor: scanner,
    actorKind: 'scanner',
    outcome: bad.length === 0 ? 'done' : 'failed',
    spawnId: null,
    links: [],
  }
}

/** "agent integrator · 2 QA error(s) carried": who the spawn goes to and what it carries, each if known. */
function queuedDetail(agent: string | null, carried: number) {
  if (agent && carried) return detailed(`agent ${agent} · ${carried} QA error(s) carried`, 'agentCarried', { agent, carried })
  if (agent) return detailed(`agent ${agent}`, 'agent', { agent })
  if (carried) return detailed(`${carried} QA error(s) carried`, 'carried', { carried })
  return { detail: null }
}

export function queuedStep(spawn: SpawnRow): Step {
  const carried = spawn.carriedErrors?.length ?? 0
  return {
    id: `spawn:${spawn.id}`,
    kind: 'spawn_queued',
    at: spawn.queuedAt.toISOString(),
    ...(spawn.iteration === 1 ? titled('Spawn 1 queued', 'firstSpawnQueued') : titled(`Re-spawn ${spawn.iteration} queued after QA`, 'respawnQueued', { iteration: spawn.iteration })),
    ...queuedDetail(spawn.agentCodename, carried),
    actor: spawn.queuedBy,
    actorKind: actorKindOf(spawn.queuedBy),
    outcome: 'done',
    spawnId: spawn.id,
    links: [spawnLink(spawn.id, spawn.iteration), ...(spawn.taskId ? [{ ...labelled('The task', 'task'), to: `/hub/worksites/tasks/${spawn.taskId}` }] : [])],
  }
}

/** A spawn that ended badly without its audit entry (an older trail): told from its own row. */
export function failedSpawnStep(spawn: SpawnRow): Step {
  return {
    id: `spawn-ended:${spawn.id}`,
    kind: 'iteration',
    at: (spawn.endedAt ?? spawn.queuedAt).toISOString(),
    ...(spawn.outcome
      ? titled(`Spawn ${spawn.iteration} ${spawn.status} (${spawn.outcome})`, 'spawnEndedOutcome', { iteration: spawn.iteration, spawnStatus: spawn.status, spawnOutcome: spawn.outcome })
      : titled(`Spawn ${spawn.iteration} ${spawn.status}`, 'spawnEnded', { iteration: spawn.iteration, spawnStatus: spawn.status })),
    detail: spawn.reason,
    actor: spawn.agentCodename ?? 'the agent',
    actorKind: 'agent',
    outcome: 'failed',
    spawnId: spawn.id,
    links: [spawnLink(spawn.id, spawn.iteration)],
  }
}

export function draftSteps(draft: typeof atlasReplyDrafts.$inferSelect): Step[] {
  const written: Step = {
    id: `draft:${draft.id}`,
    kind: 'reply_draft',
    at: draft.createdAt.toISOString(),
    ...(draft.status === 'discarded' ? titled('Reply draft written (discarded since)', 'draftDiscarded') : titled('Reply draft written', 'draftWritten')),
    detail: draft.body.length > 160 ? `${draft.body.slice(0, 160)}…` : draft.body,
    actor: draft.createdBy,
    actorKind: actorKindOf(draft.createdBy),
    outcome: draft.status === 'discarded' ? 'warning' : draft.status === 'sent' ? 'done' : 'waiting',
    spawnId: null,
    links: [],
  }
  if (draft.status !== 'sent' || !draft.sentAt) return [written]
  const by = draft.sentBy ?? 'a person'
  const sent: Step = { ...written, id: `draft-sent:${draft.id}`, at: draft.sentAt.toISOString(), ...titled('Reply sent to the sender', 'replySent'), detail: null, actor: by, actorKind: actorKindOf(by), outcome: 'done' }
  return [written, sent]
}

export function lessonStep(lesson: ProducedLesson, spawn: SpawnRow): Step {
  const by = lesson.recordedBy ?? 'atlas-spawn-worker'
  return {
    id: `lesson:${lesson.lessonId}`,
    kind: 'lesson',
    at: lesson.createdAt,
    ...lessonTitle(lesson.kind, lesson.title),
    ...(lesson.agent ? detailed(`for agent ${lesson.agent}`, 'forAgent', { agent: lesson.agent }) : detailed('a global lesson', 'globalLesson')),
    actor: by,
    actorKind: actorKindOf(by),
    outcome: 'done',
    spawnId: spawn.id,
    links: [spawnLink(spawn.id, spawn.iteration), lessonLink(lesson.lessonId, lesson.title)],
  }
}
