// A lesson attached to a spawn after the fact (issue 35, Deliver 4: the personal agent links a
// scar or a victory to the spawn it is about). The link is the one the spawn page and the
// message's story read (spawn-loop-records.ts): the `spawn:<id>` tag, and `source_spawn_id`
// when the lesson came from no spawn yet — a lesson the loop recorded keeps its own source.
// Detaching (the undo) puts both back, only while the lesson still carries the link it added.
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'

export class LessonLinkError extends Error {
  constructor(readonly code: 'not_found' | 'already_attached', message: string) {
    super(message)
    this.name = 'LessonLinkError'
  }
}

/** The lesson's link fields before the attachment (what a detach restores). */
export interface LessonLinkSnapshot { sourceSpawnId: string | null, tags: string[] }

export const spawnTag = (spawnId: string) => `spawn:${spawnId}`

export async function attachLessonToSpawn(
  db: Db,
  input: { lessonId: number, spawnId: string, actor: string },
): Promise<{ title: string, before: LessonLinkSnapshot }> {
  return await db.transaction(async (tx) => {
    const [lesson] = await tx
      .select({ title: learnLessons.title, sourceSpawnId: learnLessons.sourceSpawnId, tags: learnLessons.tags })
      .from(learnLessons)
      .where(eq(learnLessons.id, input.lessonId))
      .for('update')
    if (!lesson) throw new LessonLinkError('not_found', `no lesson #${input.lessonId}`)
    const [spawn] = await tx.select({ id: atlasSpawns.id }).from(atlasSpawns).where(eq(atlasSpawns.id, input.spawnId))
    if (!spawn) throw new LessonLinkError('not_found', `no spawn ${input.spawnId}`)
    const tag = spawnTag(input.spawnId)
    if (lesson.sourceSpawnId === input.spawnId || lesson.tags.includes(tag))
      throw new LessonLinkError('already_attached', `lesson #${input.lessonId} is already attached to spawn ${input.spawnId}`)
    await tx
      .update(learnLessons)
      .set({ sourceSpawnId: lesson.sourceSpawnId ?? input.spawnId, tags: [...lesson.tags, tag], updatedAt: new Date() })
      .where(eq(learnLessons.id, input.lessonId))
    await recordAudit(tx, {
      actor: input.actor,
      action: 'learning.lesson_attached',
      target: `learn_lesson:${input.lessonId}`,
      details: { spawnId: input.spawnId },
    })
    return { title: lesson.title, before: { sourceSpawnId: lesson.sourceSpawnId, tags: lesson.tags } }
  })
}

/** Undo of an attachment: false when the lesson is gone or no longer carries the link. */
export async function detachLessonFromSpawn(
  db: Db,
  input: { lessonId: number, spawnId: string, before: LessonLinkSnapshot, actor: string },
): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const tag = spawnTag(input.spawnId)
    const [detached] = await tx
      .update(learnLessons)
      .set({ sourceSpawnId: input.before.sourceSpawnId, tags: sql`array_remove(${learnLessons.tags}, ${tag})`, updatedAt: new Date() })
      .where(and(eq(learnLessons.id, input.lessonId), sql`${tag} = any(${learnLessons.tags})`))
      .returning({ id: learnLessons.id })
    if (!detached) return false
    await recordAudit(tx, {
      actor: input.actor,
      action: 'learning.lesson_detached',
      target: `learn_lesson:${input.lessonId}`,
      details: { spawnId: input.spawnId },
    })
    return true
  })
}
