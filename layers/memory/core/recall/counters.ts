// Anti-forgetting: each scar served gets recall_count + 1 and last_recalled_at = now. The
// archiving only purges scars never recalled. Never blocks or fails a response: the caller
// does not wait for it, and an error is logged, not thrown.
import { inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnLessons } from '#db/schema/learn'

export async function countRecalls(db: Db, lessonIds: number[], log: (line: string) => void): Promise<number> {
  if (lessonIds.length === 0) return 0
  try {
    const updated = await db.update(learnLessons)
      .set({ recallCount: sql`${learnLessons.recallCount} + 1`, lastRecalledAt: sql`now()` })
      .where(inArray(learnLessons.id, lessonIds))
      .returning({ id: learnLessons.id })
    return updated.length
  }
  catch (error) {
    log(`[recall] recall counters not updated (${(error as Error).message}); the response was served anyway`)
    return 0
  }
}
