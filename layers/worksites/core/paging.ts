// Keyset (cursor) paging for the worksites lists: ORDER BY the sort column then the id, and
// the cursor is the last row's (sort value, id) as opaque base64url JSON. The sort value is
// carried as text (timestamps keep their microseconds) and compared back in its column's type.
import { sql, type SQL } from 'drizzle-orm'
import { badInput } from './errors'

export interface Page<T> {
  items: T[]
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null
  /** How many match the filters over all pages. */
  total: number
}

export interface SortColumn {
  /** The SQL expression sorted on. */
  expr: SQL
  /** Its SQL type, to read a cursor's text back (timestamptz, text, integer). */
  type: 'timestamptz' | 'text' | 'integer'
}

export interface Keyset {
  where: SQL
  orderBy: SQL
  /** The expression selected as the row's cursor value (text). */
  key: SQL
  desc: boolean
}

export function encodeCursor(value: string | null, id: string): string {
  return Buffer.from(JSON.stringify([value, id])).toString('base64url')
}

function decodeCursor(cursor: string): [string | null, string] {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(parsed) && parsed.length === 2 && (typeof parsed[0] === 'string' || parsed[0] === null) && typeof parsed[1] === 'string' && /^[0-9a-f-]{36}$/i.test(parsed[1])) {
      return [parsed[0], parsed[1]]
    }
  }
  catch {
    // Not base64url JSON: refused below like any other malformed cursor.
  }
  throw badInput('The cursor is not one this list handed out.', 'cursor')
}

/** `sort` is a column name with an optional leading '-' (descending). */
export function keyset(sort: string, columns: Record<string, SortColumn>, id: SQL, cursor?: string): Keyset {
  const desc = sort.startsWith('-')
  const column = columns[desc ? sort.slice(1) : sort]
  if (!column) throw badInput(`Unknown sort "${sort}".`, 'sort')
  const direction = desc ? sql.raw('desc') : sql.raw('asc')
  const orderBy = sql`${column.expr} ${direction}, ${id} ${direction}`
  const key = sql`${column.expr}::text`
  if (!cursor) return { where: sql`true`, orderBy, key, desc }
  const [value, lastId] = decodeCursor(cursor)
  const typed = sql`${value}::${sql.raw(column.type)}`
  const after = desc
    ? sql`(${column.expr} < ${typed} or (${column.expr} = ${typed} and ${id} < ${lastId}::uuid))`
    : sql`(${column.expr} > ${typed} or (${column.expr} = ${typed} and ${id} > ${lastId}::uuid))`
  return { where: after, orderBy, key, desc }
}

/** Trims the extra row fetched to know whether a next page exists, and builds its cursor. */
export function pageOf<T extends { id: string }>(
  rows: Array<T & { sortKey: string | null }>,
  limit: number,
): { items: T[], nextCursor: string | null } {
  const more = rows.length > limit
  const kept = rows.slice(0, limit)
  const last = kept.at(-1)
  const items = kept.map(({ sortKey: _key, ...item }) => item as unknown as T)
  return { items, nextCursor: more && last ? encodeCursor(last.sortKey, last.id) : null }
}

/** A timestamp as the API returns it (ISO 8601, UTC, milliseconds). */
export function iso(expr: SQL): SQL {
  return sql`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}

/** `%q%` for ILIKE, with the pattern characters of q escaped. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, c => `\\${c}`)}%`
}
