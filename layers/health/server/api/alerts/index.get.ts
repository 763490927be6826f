import { desc } from 'drizzle-orm'
import { opsAlerts } from '#db/schema/index'

export default defineEventHandler(async () => {
  const db = await useDb()
  return await db.select().from(opsAlerts).orderBy(desc(opsAlerts.raisedAt)).limit(100)
})
