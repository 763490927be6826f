import { sql } from 'drizzle-orm'

// Public liveness probe: the server answers and the database responds.
export default defineEventHandler(async (event) => {
  try {
    const db = await useDb()
    await db.execute(sql`select 1`)
    return { status: 'ok' as const, database: 'ok' as const }
  }
  catch {
    setResponseStatus(event, 503)
    return { status: 'degraded' as const, database: 'unreachable' as const }
  }
})
