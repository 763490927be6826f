import { connectDatabase, type Database, type Db } from '#db/connection'
import { hubSessionSettings } from '#db/session-settings'

let database: Promise<Database> | undefined

/** The server's connection pool, opened on first use from DATABASE_URL (set by the launcher). */
export function useDatabase(): Promise<Database> {
  if (!database) {
    const url = process.env.DATABASE_URL
    if (!url) {
      throw createError({
        statusCode: 503,
        statusMessage: 'The hub server has no DATABASE_URL: start it with npm start (or npm run dev), which provides one.',
        data: { code: 'database_not_configured' },
      })
    }
    database = connectDatabase(url, { max: 10, settings: hubSessionSettings(process.env) })
    database.catch(() => {
      database = undefined
    })
  }
  return database
}

export async function useDb(): Promise<Db> {
  return (await useDatabase()).db
}

export async function closeDatabase(): Promise<void> {
  const current = database
  database = undefined
  if (current) await (await current.catch(() => null))?.close()
}
