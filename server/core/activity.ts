// The Activity page's record: the two audit trails, hub_audit (people's actions in the hub)
// and atlas_audit (the Atlas pipeline: collection, classification, spawns, mail), newest
// first in one list, filtered by source, actor, action and time; also as CSV.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'

export const ACTIVITY_SOURCES = ['hub', 'atlas'] as const
export type ActivitySource = typeof ACTIVITY_SOURCES[number]

export interface ActivityFilter {
  source?: ActivitySource
  /** Part of the actor (case-insensitive). */
  actor?: string
  /** Exact action name. */
  action?: string
  since?: Date
  until?: Date
  /** Keyset paging: entries strictly older than this (at, source, id). */
  before?: { at: Date, source: ActivitySource, id: number }
  limit: number
}

export interface ActivityEntry {
  source: ActivitySource
  id: number
  at: string
  actor: string
  action: string
  /** What was acted on: a hub target, or `message #N` for the Atlas trail. */
  target: string | null
  messageId: number | null
  details: Record<string, unknown>
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, c => `\\${c}`)}%`
}

function conditions(filter: ActivityFilter): SQL {
  const parts: SQL[] = [sql`true`]
  if (filter.source) parts.push(sql`source = ${filter.source}`)
  if (filter.actor) parts.push(sql`actor ilike ${likePattern(filter.actor)}`)
  if (filter.action) parts.push(sql`action = ${filter.action}`)
  if (filter.since) parts.push(sql`at >= ${filter.since.toISOString()}::timestamptz`)
  if (filter.until) parts.push(sql`at < ${filter.until.toISOString()}::timestamptz`)
  if (filter.before) parts.push(sql`(date_trunc('milliseconds', at), source, id) < (${filter.before.at.toISOString()}::timestamptz, ${filter.before.source}, ${filter.before.id})`)
  return sql.join(parts, sql` and `)
}

const TRAILS = sql`(
  select 'hub' as source, id, at, actor, action, target, null::bigint as message_id, details from hub_audit
  union all
  select 'atlas' as source, id, at, actor, action, case when message_id is null then null else 'message #' || message_id end, message_id, details from atlas_audit
) trails`

export async function listActivity(db: Db, filter: ActivityFilter): Promise<{ items: ActivityEntry[], actions: string[] }> {
  const rows = await db.execute<{ source: ActivitySource, id: number | string, at: Date | string, actor: string, action: string, target: string | null, message_id: number | string | null, details: Record<string, unknown> }>(sql`
    select source, id, at, actor, action, target, message_id, details from ${TRAILS}
    where ${conditions(filter)}
    order by date_trunc('milliseconds', at) desc, source desc, id desc
    limit ${filter.limit}`)
  // The actions present, for the filter's list (both trails are append-only and small per action).
  const actions = await db.execute<{ action: string }>(sql`select distinct action from ${TRAILS} order by action`)
  return {
    items: rows.map(row => ({
      source: row.source,
      id: Number(row.id),
      at: new Date(row.at).toISOString(),
      actor: row.actor,
      action: row.action,
      target: row.target,
      messageId: row.message_id === null ? null : Number(row.message_id),
      details: row.details ?? {},
    })),
    actions: actions.map(row => row.action),
  }
}

function csvCell(value: string): string {
  // Quoted always; a leading formula character is defused so a spreadsheet shows it as text.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return `"${safe.replace(/"/g, '""')}"`
}

export function activityCsv(items: ActivityEntry[]): string {
  const header = ['at', 'source', 'actor', 'action', 'target', 'details']
  const lines = items.map(entry => [entry.at, entry.source, entry.actor, entry.action, entry.target ?? '', JSON.stringify(entry.details)].map(csvCell).join(','))
  return [header.join(','), ...lines].join('\r\n') + '\r\n'
}
