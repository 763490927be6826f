// The timeline of a worksites entity or registry record, newest first: the message it came
// from, the spawns that worked on it (with their QA), the lessons those spawns left, the
// iterations of its tasks, and its own status changes and assignments (work_transitions).
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { RegistryRecord, TimelineItem } from '../shared/api'
import { notFound } from './errors'
import { iso } from './paging'
import type { Entity, RegistryEntity } from './vocabulary'

type Exec = Pick<Db, 'execute'>
const LIMIT = 300

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

function parts(kind: string, messages: SQL, spawns: SQL, historyOf: SQL, iterationsOf: SQL | null): SQL {
  return sql`
    select ${iso(sql`m.received_at`)} as at, m.received_at as ts, 'message' as kind, coalesce(nullif(m.subject, ''), '(no subject)') as title,
      coalesce(m.from_address, '') as detail, '/hub/atlas/' || m.id as href
    from atlas_messages m where m.id in (${messages})
    union all
    select ${iso(sql`s.queued_at`)}, s.queued_at, 'spawn', 'Spawn ' || s.iteration || ' ' || s.status || coalesce(' (' || s.outcome || ')', ''),
      coalesce(s.reason, s.agent_codename, ''), '/hub/atlas/spawns/' || s.id
    from atlas_spawns s where ${spawns}
    union all
    select ${iso(sql`coalesce(s.ended_at, s.queued_at)`)}, coalesce(s.ended_at, s.queued_at), 'qa', 'QA of spawn ' || s.iteration || ': ' || case when jsonb_array_length(coalesce(s.qa->'errors', '[]'::jsonb)) = 0 then 'passed' else jsonb_array_length(s.qa->'errors') || ' error(s)' end,
      coalesce(s.qa->>'note', ''), '/hub/atlas/spawns/' || s.id
    from atlas_spawns s where s.qa is not null and ${spawns}
    union all
    select ${iso(sql`l.created_at`)}, l.created_at, 'lesson', case when l.kind = 'success' then 'Victory: ' else 'Scar: ' end || l.title, l.check_added, '/hub/learning?lesson=' || l.id
    from learn_lessons l join atlas_spawns s on s.id = l.source_spawn_id where ${spawns}
    ${iterationsOf
      ? sql`union all
    select ${iso(sql`i.created_at`)}, i.created_at, 'iteration', 'Iteration ' || i.step || ': ' || i.outcome, left(i.observation, 500), null
    from work_iterations i where i.task_id in (${iterationsOf})`
      : sql``}
    union all
    select ${iso(sql`h.at`)}, h.at, case when h.kind = 'assignment' then 'assignment' else 'transition' end,
      case when h.kind = 'assignment' then 'Assigned to ' || coalesce(h.owner->>'codename', h.owner->>'id', 'nobody')
           when h.kind = 'created' then 'Created (' || coalesce(h.to_status, '') || ')'
           else coalesce(h.from_status, '?') || ' → ' || coalesce(h.to_status, '?') end,
      concat_ws(' · ', h.actor, h.reason), null
    from work_transitions h where h.entity = ${kind} and ${historyOf}`
}

async function run(db: Exec, union: SQL): Promise<TimelineItem[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`select at, kind, title, nullif(detail, '') as detail, href from (${union}) x order by ts desc limit ${LIMIT}`)
  return rows as unknown as TimelineItem[]
}

export async function entityTimeline(db: Exec, entity: Entity, id: string): Promise<TimelineItem[]> {
  const table = sql.raw(`work_${entity === 'project' ? 'projects' : entity === 'chantier' ? 'chantiers' : `${entity}s`}`)
  const [exists] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${table} where id = ${id}::uuid`)
  if (!exists?.n) throw notFound(entity, id)
  const tasks = tasksOf(entity, id)
  // A chantier's spawns are its message's; a task's are those started for it (or its tasks').
  const spawns = entity === 'chantier'
    ? sql`(s.message_id in (${messageOf(entity, id)}) or s.task_id in (${tasks}))`
    : sql`s.task_id in (${tasks})`
  return await run(db, parts(entity, messageOf(entity, id), spawns, sql`h.entity_id = ${id}::uuid`, tasks))
}

export async function registryTimeline(db: Exec, entity: RegistryEntity, record: Pick<RegistryRecord, 'id' | 'sourceMessageId'>): Promise<TimelineItem[]> {
  const message = sql`select ${record.sourceMessageId}::bigint`
  return await run(db, parts(entity, message, sql`s.message_id = ${record.sourceMessageId}::bigint`, sql`h.entity_id = ${record.id}::uuid`, null))
}
