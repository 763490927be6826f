// The Activity page's record: the two audit trails, hub_audit (people's actions in the hub)
// and atlas_audit (the Atlas pipeline: collection, classification, spawns, mail), newest
// first in one list (or sorted by a column), filtered by source, actor, action and time, one
// numbered page at a time; also as CSV.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { Paged, SortDir } from '#shared/paging'

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
}

/** The columns the Activity table sorts by (newest first by default). */
export const ACTIVITY_SORTS = ['at', 'source', 'actor', 'action', 'target'] as const
export type ActivitySort = typeof ACTIVITY_SORTS[number]

export interface ActivityPage {
  /** 1-based. */
  page: number
  pageSize: number
  sort?: ActivitySort
  dir?: SortDir
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
  return sql.join(parts, sql` and `)
}

const TRAILS = sql`(
  select 'hub' as source, id, at, actor, action, target, null::bigint as message_id, details from hub_audit
  union all
  select 'atlas' as source, id, at, actor, action, case when message_id is null then null else 'message #' || message_id end, message_id, details from atlas_audit
) trails`

// Whitelisted columns only: the sort key never reaches the SQL as text.
const SORT_COLUMN: Record<ActivitySort, SQL> = {
  at: sql`date_trunc('milliseconds', at)`,
  source: sql`source`,
  actor: sql`actor`,
  action: sql`action`,
  target: sql`target`,
}

type Row = {
  source: ActivitySource
  id: number | string
  at: Date | string
  actor: string
  action: string
  target: string | null
  message_id: number | string | null
  details: Record<string, unknown>
}

function entry(row: Row): ActivityEntry {
  return {
    source: row.source,
    id: Number(row.id),
    at: new Date(row.at).toISOString(),
    actor: row.actor,
    action: row.action,
    target: row.target,
    messageId: row.message_id === null ? null : Number(row.message_id),
    details: row.details ?? {},
  }
}

/** One page of the trails in the asked order; newest first breaks ties, so pages never overlap. */
export async function listActivity(
  db: Db,
  filter: ActivityFilter,
  paging: ActivityPage,
): Promise<Paged<ActivityEntry> & { actions: string[] }> {
  const pageSize = Math.min(Math.max(paging.pageSize, 1), 10_000)
  const page = Math.max(paging.page, 1)
  const dir = paging.dir === 'asc' ? sql`asc` : sql`desc`
  const chosen = paging.sort && paging.sort !== 'at' ? sql`${SORT_COLUMN[paging.sort]} ${dir} nulls last, ` : sql``
  const newest = paging.sort === 'at' ? dir : sql`desc`
  const where = conditions(filter)
  const rows = await db.execute<Row>(sql`
    select source, id, at, actor, action, target, message_id, details from ${TRAILS}
    where ${where}
    order by ${chosen}date_trunc('milliseconds', at) ${newest}, source ${newest}, id ${newest}
    limit ${pageSize} offset ${(page - 1) * pageSize}`)
  const [count] = await db.execute<{ n: number | string }>(sql`select count(*) as n from ${TRAILS} where ${where}`)
  // The actions present, for the filter's list (both trails are append-only and small per action).
  const actions = await db.execute<{ action: string }>(sql`select distinct action from ${TRAILS} order by action`)
  return { items: rows.map(entry), total: Number(count?.n ?? 0), page, pageSize, actions: actions.map(row => row.action) }
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
