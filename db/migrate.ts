import { migrate } from 'drizzle-orm/postgres-js/migrator'
import { fileURLToPath } from 'node:url'
import type { Database } from './connection'

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url))

/**
 * Applies every pending migration; safe to call at each start and from several processes
 * at once: an advisory lock serialises them on PostgreSQL, and the embedded server
 * serialises transactions on its single backend.
 */
export async function migrateDatabase(database: Pick<Database, 'db' | 'sql'>): Promise<void> {
  const connection = await database.sql.reserve()
  try {
    await connection`select pg_advisory_lock(hashtext('synedre:migrate'))`
    await migrate(database.db, { migrationsFolder: MIGRATIONS_FOLDER })
  }
  finally {
    await connection`select pg_advisory_unlock(hashtext('synedre:migrate'))`
      .catch((error: unknown) => console.error(`[synedre] releasing the migration lock failed (it goes with the connection): ${(error as Error).message}`))
    connection.release()
  }
}
