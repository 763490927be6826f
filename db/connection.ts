// postgres.js + drizzle to a server address: all the hub's Nitro server needs (the
// embedded database is started by the launcher, which hands its address over).
import postgres from 'postgres'
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js'
import * as schema from './schema'
import { SESSION_SETTINGS } from './session-settings'
import { DatabaseSetupError } from './errors'

export type Db = PostgresJsDatabase<typeof schema>
/** The handle inside `db.transaction(async tx => …)`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type Sql = postgres.Sql

export interface Database {
  db: Db
  sql: Sql
  /** Address to hand to child processes (as their DATABASE_URL). */
  url: string
  kind: 'embedded' | 'external'
  close: () => Promise<void>
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  }
  catch {
    return '(unparseable URL)'
  }
}

/** `settings` are more startup parameters for every session of the pool (the hub's statement_timeout). */
export function connect(url: string, max: number, settings: Record<string, string> = {}): Sql {
  return postgres(url, { max, onnotice: () => {}, connect_timeout: 10, idle_timeout: 30, connection: { ...SESSION_SETTINGS, ...settings } })
}

/**
 * drizzle runs every query through `sql.unsafe`, which postgres.js never prepares: each
 * parametrised query then costs a Parse/Describe round trip before its Bind/Execute and is
 * planned again each time. Preparing them (as postgres.js already does for its tagged
 * templates) halves the round trips of the hub's reads; a query without parameters stays a
 * simple query, so multi-statement text keeps working.
 */
export function preparing(sql: Sql): Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property === 'unsafe') {
        return (text: string, args?: unknown[], options?: Record<string, unknown>) =>
          Array.isArray(args) && args.length > 0
            ? target.unsafe(text, args as never, { ...options, prepare: true })
            : target.unsafe(text, args as never, options)
      }
      // A transaction's (and a savepoint's) handle is another client: prepare through it too.
      if (property === 'begin' || property === 'savepoint') {
        return (...params: unknown[]) => {
          const index = params.findIndex(param => typeof param === 'function')
          const callback = params[index] as (client: Sql) => unknown
          params[index] = (client: Sql) => callback(preparing(client))
          return (value as (...args: unknown[]) => unknown).apply(target, params)
        }
      }
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

export async function checkServer(sql: Sql, url: string): Promise<void> {
  try {
    await sql`select 1`
  }
  catch (error) {
    throw new DatabaseSetupError(
      `Cannot connect to the database at ${redactUrl(url)}: ${(error as Error).message}`,
      'Check DATABASE_URL (host, port, user, password, database name) and that the server is running; unset it to use the embedded database.',
    )
  }
  const [row] = await sql<{ available: boolean }[]>`
    select exists(select 1 from pg_available_extensions where name = 'vector') as available`
  if (!row?.available) {
    throw new DatabaseSetupError(
      `The PostgreSQL server at ${redactUrl(url)} has no pgvector extension.`,
      'Install pgvector ≥ 0.5 on that server (Debian: postgresql-<major>-pgvector, or build it from source; see docs/operations.md, "An external PostgreSQL"), or unset DATABASE_URL to use the embedded database.',
    )
  }
}

/** Connects to a PostgreSQL server and checks it can serve Synedre OS (reachable, pgvector). */
export async function connectDatabase(url: string, options: { max?: number, kind?: Database['kind'], settings?: Record<string, string> } = {}): Promise<Database> {
  let sql: Sql
  try {
    sql = connect(url, options.max ?? 10, options.settings)
  }
  catch (error) {
    throw new DatabaseSetupError(
      `DATABASE_URL is not a valid PostgreSQL address (${(error as Error).message}).`,
      'Write it as postgres://user:password@host:5432/database, or unset it to use the embedded database.',
    )
  }
  try {
    await checkServer(sql, url)
  }
  catch (error) {
    // The check's error is the one worth reporting; closing a pool that never worked adds nothing.
    await sql.end({ timeout: 1 }).catch(() => {})
    throw error
  }
  return { db: drizzle(preparing(sql), { schema }), sql, url, kind: options.kind ?? 'external', close: () => sql.end({ timeout: 5 }) }
}
