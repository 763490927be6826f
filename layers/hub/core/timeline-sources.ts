// The worksites timeline's port implemented on atlas, the spawn engine and learning: the
// message an entity came from, the spawns that worked on it (with their QA) and the lessons
// those spawns left. Here (hub, the wiring on top) because worksites sits below the three.
import { sql, type SQL } from 'drizzle-orm'
import { iso } from '#layers/worksites/core/paging'
import type { TimelineScope, TimelineSources } from '#layers/worksites/core/timeline'

/** The spawns of the scope: those of its tasks, and those of its messages when it says so. */
function spawnsOf({ messages, tasks, spawnsOfMessages }: TimelineScope): SQL {
  const ofMessages = sql`s.message_id in (${messages})`
  if (!tasks) return spawnsOfMessages ? ofMessages : sql`false`
  const ofTasks = sql`s.task_id in (${tasks})`
  return spawnsOfMessages ? sql`(${ofMessages} or ${ofTasks})` : ofTasks
}

// Each title in English with its catalog message and values beside it (the port's contract,
// layers/worksites/core/timeline.ts): the words are worksites' (worksites.timeline.titles.*).
export const timelineSources: TimelineSources = (scope) => {
  const spawns = spawnsOf(scope)
  const errors = sql`jsonb_array_length(coalesce(s.qa->'errors', '[]'::jsonb))`
  return sql`
    select ${iso(sql`m.received_at`)} as at, m.received_at as ts, 'message' as kind, coalesce(nullif(m.subject, ''), '(no subject)') as title,
      case when nullif(m.subject, '') is null then 'worksites.timeline.titles.noSubject' end as title_key, null::jsonb as title_values,
      coalesce(m.from_address, '') as detail, '/hub/atlas/' || m.id as href
    from atlas_messages m where m.id in (${scope.messages})
    union all
    select ${iso(sql`s.queued_at`)}, s.queued_at, 'spawn', 'Spawn ' || s.iteration || ' ' || s.status || coalesce(' (' || s.outcome || ')', ''),
      case when s.outcome is null then 'worksites.timeline.titles.spawn' else 'worksites.timeline.titles.spawnWithOutcome' end,
      jsonb_strip_nulls(jsonb_build_object('n', s.iteration, 'status', s.status, 'outcome', s.outcome)),
      coalesce(s.reason, s.agent_codename, ''), '/hub/atlas/spawns/' || s.id
    from atlas_spawns s where ${spawns}
    union all
    select ${iso(sql`coalesce(s.ended_at, s.queued_at)`)}, coalesce(s.ended_at, s.queued_at), 'qa',
      'QA of spawn ' || s.iteration || ': ' || case when ${errors} = 0 then 'passed' else ${errors} || ' error(s)' end,
      case when ${errors} = 0 then 'worksites.timeline.titles.qaPassed' else 'worksites.timeline.titles.qaErrors' end,
      case when ${errors} = 0 then jsonb_build_object('n', s.iteration) else jsonb_build_object('n', s.iteration, 'errors', ${errors}) end,
      coalesce(s.qa->>'note', ''), '/hub/atlas/spawns/' || s.id
    from atlas_spawns s where s.qa is not null and ${spawns}
    union all
    select ${iso(sql`l.created_at`)}, l.created_at, 'lesson', case when l.kind = 'success' then 'Victory: ' else 'Scar: ' end || l.title,
      case when l.kind = 'success' then 'worksites.timeline.titles.victory' else 'worksites.timeline.titles.scar' end, jsonb_build_object('title', l.title),
      l.check_added, '/hub/learning?lesson=' || l.id
    from learn_lessons l join atlas_spawns s on s.id = l.source_spawn_id where ${spawns}`
}
