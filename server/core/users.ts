// hub_users: create, find and check the people who may sign in.
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/connection'
import { hubUsers, type HubRole, type HubUser } from '../../db/schema'
import { recordAudit } from '../../db/audit'
import { hashPassword, verifyPassword } from './passwords'

export const MIN_PASSWORD_LENGTH = 12

export class UserInputError extends Error {}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

export interface NewUser { email: string, name?: string, role: HubRole, password: string }

export async function createUser(db: Db, input: NewUser, actor: string): Promise<HubUser> {
  const email = normaliseEmail(input.email)
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UserInputError(`"${input.email}" is not an email address`)
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new UserInputError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  const passwordHash = await hashPassword(input.password)
  return await db.transaction(async (tx) => {
    const [user] = await tx.insert(hubUsers)
      .values({ email, name: input.name?.trim() || email.split('@')[0]!, role: input.role, passwordHash })
      .onConflictDoNothing({ target: hubUsers.email })
      .returning()
    if (!user) throw new UserInputError(`a hub user with the email ${email} already exists`)
    await recordAudit(tx, { actor, action: 'user_created', target: email, details: { role: input.role } })
    return user
  })
}

export async function countFounders(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(hubUsers).where(eq(hubUsers.role, 'founder'))
  return row?.n ?? 0
}

export async function findUserById(db: Db, id: string): Promise<HubUser | undefined> {
  return await db.query.hubUsers.findFirst({ where: eq(hubUsers.id, id) })
}

/** The user when the email and password match an active account; undefined otherwise. */
export async function authenticate(db: Db, email: string, password: string): Promise<HubUser | undefined> {
  const user = await db.query.hubUsers.findFirst({ where: eq(hubUsers.email, normaliseEmail(email)) })
  if (!user || !user.active) return undefined
  if (!await verifyPassword(user.passwordHash, password)) return undefined
  await db.update(hubUsers).set({ lastLoginAt: sql`now()` }).where(eq(hubUsers.id, user.id))
  return user
}

/** First start: a founder from HUB_ADMIN_EMAIL / HUB_ADMIN_PASSWORD when there is none yet. */
export async function ensureFirstFounder(db: Db, env: { email?: string, password?: string }): Promise<HubUser | null> {
  if (!env.email || !env.password) return null
  if (await countFounders(db) > 0) return null
  return await createUser(db, { email: env.email, password: env.password, role: 'founder' }, 'system:first-start')
}
