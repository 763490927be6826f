// The event path of the dispatcher: what happened in the hub since a time, as HubEvents —
// a new Atlas message classified (and, sorted to a tenant, its incoming mail), a lesson
// recorded, a work item changing status, an instruction document or a skill saved (their
// @mentions; a skill drafted by an agent's run counts once its owner saves it).
// Each carries its actor; a write made by an agent's run (actor `agent-run:<run id>:…`) names
// the run's agent so the dispatcher never lets that agent wake itself.
import { and, eq, gt, inArray, isNotNull, isNull, ne, or } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentInstructionVersions } from '#db/schema/agent-instructions'
import { agentRuns } from '#db/schema/agent-runs'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { learnLessons } from '#db/schema/learn'
import { skillVersions } from '#db/schema/skills'
import { workTransitions } from '#db/schema/worksites'
import type { HubEvent } from './triggers'

const RUN_ACTOR = /^agent-run:([0-9a-f-]{36}):/

export async function collectEvents(db: Db, since: Date, limit = 500): Promise<HubEvent[]> {
  const [messages, lessons, transitions, instructions, skillSaves] = await Promise.all([
    db.select({ id: atlasMessages.id, subject: atlasMessages.subject, from: atlasMessages.fromAddress, intent: atlasInbox.intent, tenant: atlasInbox.tenantId })
      .from(atlasInbox).innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId))
      .where(and(isNotNull(atlasInbox.intent), gt(atlasInbox.classifiedAt, since))).limit(limit),
    db.select({ id: learnLessons.id, kind: learnLessons.kind, title: learnLessons.title, agent: learnLessons.agent, tenant: learnLessons.tenantId })
      .from(learnLessons).where(gt(learnLessons.createdAt, since)).limit(limit),
    db.select().from(workTransitions).where(and(eq(workTransitions.kind, 'transition'), gt(workTransitions.at, since))).limit(limit),
    db.select({ id: agentInstructionVersions.id, body: agentInstructionVersions.body, author: agentInstructionVersions.author })
      .from(agentInstructionVersions).where(gt(agentInstructionVersions.createdAt, since)).limit(limit),
    // A draft's first version (note `draft`) is an agent's proposal, not a person's save.
    db.select({ id: skillVersions.id, body: skillVersions.body, author: skillVersions.createdBy })
      .from(skillVersions).where(and(gt(skillVersions.createdAt, since), or(isNull(skillVersions.note), ne(skillVersions.note, 'draft')))).limit(limit),
  ])
  const events: HubEvent[] = []
  for (const message of messages) {
    const fields = { intent: message.intent, subject: message.subject, from: message.from, tenant: message.tenant }
    events.push({ kind: 'atlas_message', id: String(message.id), actor: 'atlas', agent: null, fields })
    if (message.tenant) events.push({ kind: 'mail', id: String(message.id), actor: 'atlas', agent: null, fields, tenant: message.tenant })
  }
  for (const lesson of lessons) {
    events.push({ kind: 'lesson_recorded', id: String(lesson.id), actor: 'hub', agent: null, fields: { kind: lesson.kind, title: lesson.title, agent: lesson.agent, tenant: lesson.tenant } })
  }
  for (const transition of transitions) {
    events.push({
      kind: 'work_item_status',
      id: String(transition.id),
      actor: transition.actor,
      agent: null,
      fields: { entity: transition.entity, entity_id: transition.entityId, status: transition.toStatus },
      previous: { status: transition.fromStatus },
    })
  }
  for (const version of instructions) {
    events.push({ kind: 'mention', id: `instruction-version:${version.id}`, actor: version.author, agent: null, fields: {}, text: version.body })
  }
  for (const version of skillSaves) {
    events.push({ kind: 'mention', id: `skill-version:${version.id}`, actor: version.author, agent: null, fields: {}, text: version.body })
  }
  return await withRunAgents(db, events)
}

/** Names the agent behind each event an agent's run caused. */
export async function withRunAgents(db: Db, events: HubEvent[]): Promise<HubEvent[]> {
  const runIds = [...new Set(events.flatMap(event => RUN_ACTOR.exec(event.actor)?.[1] ?? []))]
  if (runIds.length === 0) return events
  const rows = await db.select({ id: agentRuns.id, agent: agentRuns.agent }).from(agentRuns).where(inArray(agentRuns.id, runIds))
  const agentOf = new Map(rows.map(row => [row.id, row.agent]))
  return events.map((event) => {
    const runId = RUN_ACTOR.exec(event.actor)?.[1]
    return runId ? { ...event, agent: agentOf.get(runId) ?? event.agent } : event
  })
}
