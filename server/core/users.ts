// hub_users: create, find and check the people who may sign in.
import { eq, sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { hubUsers, type HubRole, type HubUser } from '#db/schema/index'
import { recordAudit } from '#db/audit'
import { hashPassword } from './passwords'
import { passwordProblem } from './password-policy'

export { MIN_PASSWORD_LENGTH } from './password-policy'

export class UserInputError extends Error {}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

export interface NewUser { email: string, name?: string, role: HubRole, password: string }

export async function createUser(db: Db, input: NewUser, actor: string): Promise<HubUser> {
  const email = normaliseEmail(input.email)
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UserInputError(`"${input.email}" is not an email address`)
  const problem = passwordProblem(input.password, email)
  if (problem) throw new UserInputError(problem)
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

/** First start: a founder from HUB_ADMIN_EMAIL / HUB_ADMIN_PASSWORD when there is none yet. */
export async function ensureFirstFounder(db: Db, env: { email?: string, password?: string }): Promise<HubUser | null> {
  if (!env.email || !env.password) return null
  if (await countFounders(db) > 0) return null
  return await createUser(db, { email: env.email, password: env.password, role: 'founder' }, 'system:first-start')
}
