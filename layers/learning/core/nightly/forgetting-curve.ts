// Feature 6, the forgetting curve: the very old scars that recall never brought back are
// archived (archived_at set, nothing deleted), at most 200 a night; recall leaves archived
// scars out (recall/arms.ts). Reversible: unarchiveLesson, reached from the hub.
import { and, eq, isNotNull, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnLessons } from '#db/schema/learn'
import { daysBefore, type NightlyFeature } from './context'

export const FORGET_AFTER_DAYS = 180
export const FORGET_MAX_PER_NIGHT = 200

export const forgettingCurve: NightlyFeature = {
  name: 'forgetting-curve',
  routingKey: null,
  async run(ctx) {
    const before = daysBefore(ctx.now, FORGET_AFTER_DAYS)
    const eligible = await ctx.db.execute<{ id: string }>(sql`
      select id::text as id from learn_lessons
      where kind <> 'success' and archived_at is null and recall_count = 0 and last_recalled_at is null and created_at < ${before.toISOString()}
      order by created_at, id limit ${FORGET_MAX_PER_NIGHT}`)
    const ids = eligible.map(r => Number(r.id))
    if (!ctx.dryRun && ids.length > 0) {
      await ctx.db.execute(sql`update learn_lessons set archived_at = ${ctx.now.toISOString()}, updated_at = now() where id in ${sql.raw(`(${ids.join(',')})`)} and archived_at is null`)
    }
    return { counts: { eligible: ids.length, archived: ctx.dryRun ? 0 : ids.length }, items: ids.map(id => ({ lessonId: id })), drafts: [] }
  },
}

export class UnarchiveError extends Error {
  constructor(readonly code: 'not_found' | 'not_archived', message: string) {
    super(message)
  }
}

/** Brings an archived lesson back (recall sees it again); refuses one that is not archived. */
export async function unarchiveLesson(db: Db, id: number): Promise<{ id: number, archivedAt: null }> {
  const [row] = await db.update(learnLessons).set({ archivedAt: null, updatedAt: new Date() })
    .where(and(eq(learnLessons.id, id), isNotNull(learnLessons.archivedAt))).returning({ id: learnLessons.id })
  if (row) return { id: row.id, archivedAt: null }
  const [exists] = await db.select({ id: learnLessons.id }).from(learnLessons).where(eq(learnLessons.id, id))
  throw exists ? new UnarchiveError('not_archived', `lesson #${id} is not archived`) : new UnarchiveError('not_found', `no lesson #${id}`)
}
