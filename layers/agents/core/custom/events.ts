// The event path of the dispatcher: what happened in the hub, as HubEvents — a new Atlas
// message classified (and, sorted to a tenant, its incoming mail), a lesson recorded, a work
// item changing status, an instruction document or a skill saved (their @mentions; a skill
// drafted by an agent's run counts once its owner saves it).
// Each source is read in (time, id) order after a cursor, a page at a time: in a burst every
// row is read once, none skipped by a limit that picked an arbitrary subset (event-cycle.ts
// keeps the cursors). Each event carries its actor; a write made by an agent's run (actor
// `agent-run:<run id>:…`) names the run's agent so the dispatcher never lets that agent wake itself.
import { and, asc, eq, inArray, isNotNull, isNull, lte, ne, or, sql, type SQL } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import type { Db } from '#db/connection'
import { agentInstructionVersions } from '#db/schema/agent-instructions'
import { agentRuns } from '#db/schema/agent-runs'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { learnLessons } from '#db/schema/learn'
import { skillVersions } from '#db/schema/skills'
import { workTransitions } from '#db/schema/worksites'
import type { HubEvent } from './triggers'

const RUN_ACTOR = /^agent-run:([0-9a-f-]{36}):/

/** The tables the dispatcher reads, each with its own cursor. */
export const EVENT_SOURCES = ['atlas_inbox', 'learn_lessons', 'work_transitions', 'agent_instruction_versions', 'skill_versions'] as const
export type EventSource = typeof EVENT_SOURCES[number]

/** The last row read: its time to the microsecond (ISO, UTC) and its id (ties at one time go by id). */
export interface SourceCursor { at: string, id: number }

export interface SourcePage {
  source: EventSource
  events: HubEvent[]
  /** Rows read (an Atlas message gives two events when sorted to a tenant). */
  rows: number
  /** The cursor after this page (unchanged when it is empty). */
  cursor: SourceCursor
}

export interface ReadOptions {
  limit: number
  /** Only rows at or before this time (null: no bound). */
  horizon: Date | null
}

/** A timestamp as exact text: a JS Date would round away the microseconds ties are broken on. */
const exactTime = (column: PgColumn) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

function after(time: PgColumn, id: PgColumn, cursor: SourceCursor, horizon: Date | null): SQL {
  const past = sql`(${time}, ${id}) > (${cursor.at}::timestamptz, ${cursor.id})`
  return horizon ? and(past, lte(time, horizon))! : past
}

interface Row { at: string, key: number, events: HubEvent[] }

const readers: Record<EventSource, (db: Db, cursor: SourceCursor, options: ReadOptions) => Promise<Row[]>> = {
  async atlas_inbox(db, cursor, { limit, horizon }) {
    const rows = await db
      .select({
        at: exactTime(atlasInbox.classifiedAt),
        key: atlasInbox.id,
        id: atlasMessages.id,
        subject: atlasMessages.subject,
        from: atlasMessages.fromAddress,
        intent: atlasInbox.intent,
        tenant: atlasInbox.tenantId,
      })
      .from(atlasInbox)
      .innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId))
      .where(
        and(
          isNotNull(atlasInbox.intent),
          isNotNull(atlasInbox.classifiedAt),
          after(atlasInbox.classifiedAt, atlasInbox.id, cursor, horizon),
        ),
      )
      .orderBy(asc(atlasInbox.classifiedAt), asc(atlasInbox.id))
      .limit(limit)
    return rows.map((message) => {
      const fields = { intent: message.intent, subject: message.subject, from: message.from, tenant: message.tenant }
      const events: HubEvent[] = [{ kind: 'atlas_message', id: String(message.id), actor: 'atlas', agent: null, fields }]
      if (message.tenant) events.push({ kind: 'mail', id: String(message.id), actor: 'atlas', agent: null, fields, tenant: message.tenant })
      return { at: message.at, key: message.key, events }
    })
  },
  async learn_lessons(db, cursor, { limit, horizon }) {
    const rows = await db
      .select({
        at: exactTime(learnLessons.createdAt),
        id: learnLessons.id,
        kind: learnLessons.kind,
        title: learnLessons.title,
        agent: learnLessons.agent,
        tenant: learnLessons.tenantId,
      })
      .from(learnLessons)
      .where(after(learnLessons.createdAt, learnLessons.id, cursor, horizon))
      .orderBy(asc(learnLessons.createdAt), asc(learnLessons.id))
      .limit(limit)
    return rows.map(lesson => ({
      at: lesson.at,
      key: lesson.id,
      events: [{ kind: 'lesson_recorded', id: String(lesson.id), actor: 'hub', agent: null, fields: { kind: lesson.kind, title: lesson.title, agent: lesson.agent, tenant: lesson.tenant } }],
    }))
  },
  async work_transitions(db, cursor, { limit, horizon }) {
    const rows = await db.select({ at: exactTime(workTransitions.at), transition: workTransitions })
      .from(workTransitions).where(and(eq(workTransitions.kind, 'transition'), after(workTransitions.at, workTransitions.id, cursor, horizon)))
      .orderBy(asc(workTransitions.at), asc(workTransitions.id)).limit(limit)
    return rows.map(({ at, transition }) => ({
      at,
      key: transition.id,
      events: [{
        kind: 'work_item_status',
        id: String(transition.id),
        actor: transition.actor,
        agent: null,
        fields: { entity: transition.entity, entity_id: transition.entityId, status: transition.toStatus },
        previous: { status: transition.fromStatus },
      }],
    }))
  },
  async agent_instruction_versions(db, cursor, { limit, horizon }) {
    const rows = await db
      .select({
        at: exactTime(agentInstructionVersions.createdAt),
        id: agentInstructionVersions.id,
        body: agentInstructionVersions.body,
        author: agentInstructionVersions.author,
      })
      .from(agentInstructionVersions)
      .where(after(agentInstructionVersions.createdAt, agentInstructionVersions.id, cursor, horizon))
      .orderBy(asc(agentInstructionVersions.createdAt), asc(agentInstructionVersions.id))
      .limit(limit)
    return rows.map(version => ({ at: version.at, key: version.id, events: [{ kind: 'mention', id: `instruction-version:${version.id}`, actor: version.author, agent: null, fields: {}, text: version.body }] }))
  },
  async skill_versions(db, cursor, { limit, horizon }) {
    // A draft's first version (note `draft`) is an agent's proposal, not a person's save.
    const rows = await db
      .select({ at: exactTime(skillVersions.createdAt), id: skillVersions.id, body: skillVersions.body, author: skillVersions.createdBy })
      .from(skillVersions)
      .where(
        and(
          after(skillVersions.createdAt, skillVersions.id, cursor, horizon),
          or(isNull(skillVersions.note), ne(skillVersions.note, 'draft')),
        ),
      )
      .orderBy(asc(skillVersions.createdAt), asc(skillVersions.id))
      .limit(limit)
    return rows.map(version => ({ at: version.at, key: version.id, events: [{ kind: 'mention', id: `skill-version:${version.id}`, actor: version.author, agent: null, fields: {}, text: version.body }] }))
  },
}

/** The next page of one source after its cursor, in (time, id) order. */
export async function readSource(db: Db, source: EventSource, cursor: SourceCursor, options: ReadOptions): Promise<SourcePage> {
  const rows = await readers[source](db, cursor, options)
  const last = rows.at(-1)
  return {
    source,
    events: await withRunAgents(db, rows.flatMap(row => row.events)),
    rows: rows.length,
    cursor: last ? { at: last.at, id: last.key } : cursor,
  }
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
