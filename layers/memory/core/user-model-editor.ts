// The user model as the founder edits it in the hub: one dimension of one person at a time,
// a JSON object replacing the stored one, audited (which keys changed, never the values: the
// private dimension stays out of the logs). Reading leaves the private dimension out unless
// the reader is allowed it (the founder).
import { asc, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { memUserModel } from '#db/schema/mem'
import { USER_DIMENSIONS, type UserDimension } from './user-model/slices'
import { USER_MODEL_COLUMN } from './user-model/profile'

export const USER_MODEL_SAVED_ACTION = 'memory.user_model_saved'
/** A dimension's JSON size bound: a profile, not a document store. */
export const DIMENSION_MAX_CHARS = 20_000

export class UserModelEditError extends Error {
  constructor(readonly code: 'dimension_too_large' | 'no_actor', message: string) {
    super(message)
    this.name = 'UserModelEditError'
  }
}

export interface ProfileView {
  subject: string
  dimensions: Partial<Record<UserDimension, Record<string, unknown>>>
  updatedAt: Date
}

export async function listProfiles(db: Db, options: { allowPrivate: boolean }): Promise<ProfileView[]> {
  const rows = await db.select().from(memUserModel).orderBy(asc(memUserModel.subject))
  return rows.map(row => ({
    subject: row.subject,
    dimensions: Object.fromEntries(USER_DIMENSIONS.filter(d => d !== 'private' || options.allowPrivate).map(d => [d, row[USER_MODEL_COLUMN[d]] as Record<string, unknown>])),
    updatedAt: row.updatedAt,
  }))
}

export async function saveDimension(
  db: Db,
  request: { subject: string, dimension: UserDimension, value: Record<string, unknown>, actor: string },
): Promise<ProfileView> {
  const actor = request.actor?.trim()
  if (!actor) throw new UserModelEditError('no_actor', 'an edit of the user model names the person making it')
  const size = JSON.stringify(request.value).length
  if (size > DIMENSION_MAX_CHARS)
    throw new UserModelEditError(
      'dimension_too_large',
      `${request.dimension} is ${size} characters of JSON (at most ${DIMENSION_MAX_CHARS})`,
    )
  const column = USER_MODEL_COLUMN[request.dimension]
  return await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(memUserModel)
      .values({ subject: request.subject, [column]: request.value })
      .onConflictDoUpdate({ target: memUserModel.subject, set: { [column]: request.value, updatedAt: sql`now()` } })
      .returning()
    await recordAudit(tx, {
      actor,
      action: USER_MODEL_SAVED_ACTION,
      target: `mem_user_model:${request.subject}`,
      details: { dimension: request.dimension, keys: Object.keys(request.value) },
    })
    return {
      subject: row!.subject,
      dimensions: { [request.dimension]: row![column] as Record<string, unknown> },
      updatedAt: row!.updatedAt,
    }
  })
}
