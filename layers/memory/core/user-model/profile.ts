// getProfile(slice) → a dictionary; the private dimension only on explicit request (the
// primary operator), never inside `core`.
import { asc, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { memUserModel, type MemUserModelRow } from '#db/schema/mem'
import { USER_DIMENSIONS, type UserDimension, type UserSlice } from './slices'

export type Profile = Record<string, unknown>

export class UserModelError extends Error {
  constructor(readonly code: 'no_profile' | 'ambiguous_subject' | 'private_refused' | 'bad_slice', message: string) {
    super(message)
    this.name = 'UserModelError'
  }
}

/** Each dimension's column in mem_user_model. */
export const USER_MODEL_COLUMN: Record<UserDimension, keyof MemUserModelRow> = {
  communication_style: 'communicationStyle',
  schedules: 'schedules',
  profile: 'profile',
  skills: 'skills',
  history: 'history',
  preferences: 'preferences',
  private: 'private',
}

function pick(value: unknown, ...keys: string[]): unknown {
  if (!value || typeof value !== 'object') return undefined
  for (const key of keys) {
    const found = (value as Record<string, unknown>)[key]
    if (found !== undefined) return found
  }
  return undefined
}

/** The composite core slice from a row: never reads the private column. */
export function coreSlice(row: Pick<MemUserModelRow, 'communicationStyle' | 'preferences' | 'schedules'>): Profile {
  const core: Profile = {}
  if (Object.keys(row.communicationStyle).length) core.communication_style = row.communicationStyle
  const cognitive = pick(row.preferences, 'cognitive', 'cognitive_preferences')
  if (cognitive !== undefined) core.cognitive_preferences = cognitive
  const slots = pick(row.schedules, 'appointment_slots', 'slots', 'appointments')
  if (slots !== undefined) core.appointment_slots = slots
  return core
}

export function sliceOf(row: MemUserModelRow, slice: UserSlice, options: { allowPrivate?: boolean } = {}): Profile {
  if (slice === 'core') return coreSlice(row)
  if (slice === 'private' && !options.allowPrivate) throw new UserModelError('private_refused', 'the private dimension is reserved for the primary operator: ask for it explicitly')
  if (!USER_DIMENSIONS.includes(slice)) throw new UserModelError('bad_slice', `unknown slice ${String(slice)}`)
  return { [slice]: row[USER_MODEL_COLUMN[slice]] }
}

export async function findProfileRow(db: Db, subject?: string): Promise<MemUserModelRow> {
  if (subject) {
    const [row] = await db.select().from(memUserModel).where(eq(memUserModel.subject, subject))
    if (!row) throw new UserModelError('no_profile', `no user model for "${subject}"`)
    return row
  }
  const rows = await db.select().from(memUserModel).orderBy(asc(memUserModel.subject)).limit(2)
  if (rows.length === 0) throw new UserModelError('no_profile', 'the user model is empty (mem_user_model has no row)')
  if (rows.length > 1) throw new UserModelError('ambiguous_subject', 'several people have a user model: name one')
  return rows[0]!
}

export async function getProfile(
  db: Db,
  request: { slice?: UserSlice, subject?: string, allowPrivate?: boolean } = {},
): Promise<{ subject: string, slice: UserSlice, profile: Profile }> {
  const slice = request.slice ?? 'core'
  const row = await findProfileRow(db, request.subject)
  return { subject: row.subject, slice, profile: sliceOf(row, slice, { allowPrivate: request.allowPrivate }) }
}
