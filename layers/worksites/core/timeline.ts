// The timeline of a worksites entity or registry record, newest first: the message it came
// from, the spawns that worked on it (with their QA), the lessons those spawns left, the
// iterations of its tasks, and its own status changes and assignments (work_transitions).
// The message, spawns, QA and lessons live in the tables of higher layers: the hub supplies
// them through a port (TimelineSources, layers/hub/core/timeline-sources.ts), so worksites
// reads only its own tables. Each title goes out in English with its catalog key
// (worksites.timeline.titles.*) and values beside it, so the page says it in the reader's
// language while the API's clients keep the English.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { MessageValues } from '#layers/base/core/message-values'
import { notFound } from './errors'
import { iso } from './paging'
import type { RegistryRecord } from './registry-actions'
import type { Entity, RegistryEntity, TimelineKind } from './vocabulary'

type Exec = Pick<Db, 'execute'>
const LIMIT = 300

export interface TimelineItem {
  at: string
  kind: TimelineKind
  /** In English, as the API always said it. */
  title: string
  /** The catalog message saying the title (worksites.timeline.titles.*); null for a title shown as written (a subject). */
  titleKey: string | null
  /** The numbers and stored words (statuses, outcomes) the title is made of. */
  titleValues: MessageValues | null
  detail: string | null
  /** A hub page to open (the message, the spawn, the lesson). */
  href: string | null
}
export interface Timeline { items: TimelineItem[] }

/** The tasks whose spawns and iterations belong to the entity's timeline. */
function tasksOf(entity: Entity, id: string): SQL {
  switch (entity) {
    case 'task': return sql`select ${id}::uuid`
    case 'job': return sql`select id from work_tasks where job_id = ${id}::uuid`
    case 'chantier': return sql`select id from work_tasks where chantier_id = ${id}::uuid`
    case 'project': return sql`select id from work_tasks where project_id = ${id}::uuid`
  }
}

/** The message an entity came from: a chantier's own, or its chantier's for a job or task. */
function messageOf(entity: Entity, id: string): SQL {
  switch (entity) {
    case 'chantier': return sql`select source_message_id from work_chantiers where id = ${id}::uuid`
    case 'job': return sql`select ch.source_message_id from work_jobs j join work_chantiers ch on ch.id = j.chantier_id where j.id = ${id}::uuid`
    case 'task': return sql`select ch.source_message_id from work_tasks t join work_chantiers ch on ch.id = t.chantier_id where t.id = ${id}::uuid`
    case 'project': return sql`select null::bigint`
  }
}

/** Which of the higher layers' events belong to a timeline, as selects over worksites' own tables. */
export interface TimelineScope {
  /** A select of the ids of the messages the entity came from. */
  messages: SQL
  /** A select of the tasks whose spawns belong to it; null when none do (a registry record). */
  tasks: SQL | null
  /** Whether the spawns of those messages belong to it as well (a chantier, a registry record). */
  spawnsOfMessages: boolean
}

/**
 * The port: the higher layers' events of a timeline (message, spawns, QA, lessons) as one
 * union of rows (at, ts, kind, title, title_key, title_values, detail, href), ts the instant
 * the timeline sorts by; title in English, title_key its message under worksites.timeline.titles
 * (text, null when the title is shown as written) and title_values the message's values (jsonb,
 * null when it has none): the English message rendered with them is the title.
 */
export type TimelineSources = (scope: TimelineScope) => SQL

function parts(kind: string, foreign: SQL, historyOf: SQL, iterationsOf: SQL | null): SQL {
  return sql`
    ${foreign}
    ${iterationsOf
      ? sql`union all
    select ${iso(sql`i.created_at`)}, i.created_at, 'iteration', 'Iteration ' || i.step || ': ' || i.outcome,
      'worksites.timeline.titles.iteration', jsonb_build_object('n', i.step, 'outcome', i.outcome),
      left(i.observation, 500), null
    from work_iterations i where i.task_id in (${iterationsOf})`
      : sql``}
    union all
    select ${iso(sql`h.at`)}, h.at, case when h.kind = 'assignment' then 'assignment' else 'transition' end,
      case when h.kind = 'assignment' then 'Assigned to ' || coalesce(h.owner->>'codename', h.owner->>'id', 'nobody')
           when h.kind = 'created' then 'Created (' || coalesce(h.to_status, '') || ')'
           else coalesce(h.from_status, '?') || ' → ' || coalesce(h.to_status, '?') end,
      case when h.kind = 'assignment' and coalesce(h.owner->>'codename', h.owner->>'id') is null then 'worksites.timeline.titles.assignedToNobody'
           when h.kind = 'assignment' then 'worksites.timeline.titles.assigned'
           when h.kind = 'created' then 'worksites.timeline.titles.created'
           else 'worksites.timeline.titles.moved' end,
      case when h.kind = 'assignment' then jsonb_strip_nulls(jsonb_build_object('who', coalesce(h.owner->>'codename', h.owner->>'id')))
           when h.kind = 'created' then jsonb_build_object('status', coalesce(h.to_status, ''))
           else jsonb_build_object('from', coalesce(h.from_status, '?'), 'to', coalesce(h.to_status, '?')) end,
      concat_ws(' · ', h.actor, h.reason), null
    from work_transitions h where h.entity = ${kind} and ${historyOf}`
}

async function run(db: Exec, union: SQL): Promise<TimelineItem[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select at, kind, title, title_key as "titleKey", title_values as "titleValues", nullif(detail, '') as detail, href
    from (${union}) x order by ts desc limit ${LIMIT}`)
  return rows as unknown as TimelineItem[]
}

export async function entityTimeline(db: Exec, sources: TimelineSources, entity: Entity, id: string): Promise<TimelineItem[]> {
  const table = sql.raw(`work_${entity === 'project' ? 'projects' : entity === 'chantier' ? 'chantiers' : `${entity}s`}`)
  const [exists] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${table} where id = ${id}::uuid`)
  if (!exists?.n) throw notFound(entity, id)
  const tasks = tasksOf(entity, id)
  // A chantier's spawns are its message's as well as its tasks'; the others' are their tasks'.
  const foreign = sources({ messages: messageOf(entity, id), tasks, spawnsOfMessages: entity === 'chantier' })
  return await run(db, parts(entity, foreign, sql`h.entity_id = ${id}::uuid`, tasks))
}

export async function registryTimeline(db: Exec, sources: TimelineSources, entity: RegistryEntity, record: Pick<RegistryRecord, 'id' | 'sourceMessageId'>): Promise<TimelineItem[]> {
  const foreign = sources({ messages: sql`select ${record.sourceMessageId}::bigint`, tasks: null, spawnsOfMessages: true })
  return await run(db, parts(entity, foreign, sql`h.entity_id = ${record.id}::uuid`, null))
}
