// The latest night's project proactivity classifications (learn_project_threads), for the
// health page: what each watched project's mail thread needs, action_required first.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { ProactivityVerdict } from '#db/schema/proactivity'

export interface ProactivityView {
  projectId: string
  project: string
  tenant: string
  day: string
  verdict: ProactivityVerdict
  reason: string
  subject: string
  messages: number
  lastMessageAt: string | null
}

const ORDER = sql`case t.verdict when 'action_required' then 0 when 'awaiting_reply' then 1 when 'nothing' then 2 else 3 end`

export async function latestProactivity(db: Db): Promise<ProactivityView[]> {
  const rows = await db.execute<{ project_id: string, project: string, tenant: string, day: string, verdict: ProactivityVerdict, reason: string, subject: string, messages: number, last_message_at: string | Date | null }>(sql`
    select t.project_id, p.name as project, c.name as tenant, t.day, t.verdict, t.reason, t.subject,
      (cardinality(t.message_ids) + cardinality(t.reply_ids))::int as messages, t.last_message_at
    from learn_project_threads t join work_projects p on p.id = t.project_id join clients c on c.id = t.tenant_id
    where t.day = (select max(day) from learn_project_threads)
    order by ${ORDER}, p.name, t.project_id`)
  return rows.map(r => ({
    projectId: r.project_id, project: r.project, tenant: r.tenant, day: r.day, verdict: r.verdict, reason: r.reason, subject: r.subject,
    messages: Number(r.messages), lastMessageAt: r.last_message_at === null ? null : new Date(r.last_message_at).toISOString(),
  }))
}
