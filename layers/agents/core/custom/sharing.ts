// Sharing a custom agent (seed 003 §9, issue 21 Deliver 8): the owner (or a founder) gives a
// person a level — `use` (chat with it, see its activity), `edit` (also its instructions,
// triggers, model; never its access), `full` (also its access, its sharing, the kill switch).
// A share never widens a run: a sharee's run is still the owner's rights ∩ allowlist ∩ studio
// policy, further narrowed by the sharee's own role (access.ts). Every check reads the table,
// so a revoked share stops working on the next request.
import { and, asc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentCustom, agentCustomShares, SHARE_LEVELS, type AgentCustom, type ShareLevel } from '#db/schema/custom-agents'
import { hubUsers } from '#db/schema/hub'
import { EngineError } from '../engine/errors'
import type { PersonRole } from '../engine/vocabulary'

export type AccessLevel = ShareLevel
const RANK: Record<AccessLevel, number> = { use: 1, edit: 2, full: 3 }

export const ShareBody = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  level: z.enum(SHARE_LEVELS),
}).strict()
export const RevokeBody = z.object({ email: z.string().trim().toLowerCase().email().max(320) }).strict()

type Person = { email: string, role: PersonRole }

/** The person's level on the agent: the owner and founders hold `full`; null when not shared. */
export async function accessLevel(db: Db, person: Person, agent: Pick<AgentCustom, 'codename' | 'ownerEmail'>): Promise<AccessLevel | null> {
  if (agent.ownerEmail === person.email || person.role === 'founder') return 'full'
  const [share] = await db.select({ level: agentCustomShares.level }).from(agentCustomShares)
    .where(and(eq(agentCustomShares.codename, agent.codename), eq(agentCustomShares.email, person.email)))
  return share ? share.level as AccessLevel : null
}

/**
 * The agent if the person holds at least `needed` on it. Not shared at all: 404 (it does not
 * exist for them); shared below the level: 403 share_level_too_low with the levels held and needed.
 */
export async function agentAtLevel(
  db: Db,
  person: Person,
  name: string,
  needed: AccessLevel,
): Promise<{ agent: AgentCustom, level: AccessLevel }> {
  const [agent] = await db.select().from(agentCustom).where(eq(agentCustom.codename, name))
  const level = agent ? await accessLevel(db, person, agent) : null
  if (!agent || !level) throw new EngineError('not_found', `no custom agent ${name}`, 404)
  if (RANK[level] < RANK[needed])
    throw new EngineError('share_level_too_low', `${name} is shared with you at "${level}": this needs "${needed}"`, 403, { level, needed })
  return { agent, level }
}

/** Whether the person may see a custom agent's activity (any level, `use` included): its runs' pages read this. */
export async function seesActivityOf(db: Db, person: Person, codename: string): Promise<boolean> {
  const [agent] = await db
    .select({ codename: agentCustom.codename, ownerEmail: agentCustom.ownerEmail })
    .from(agentCustom)
    .where(eq(agentCustom.codename, codename))
  return !!agent && (await accessLevel(db, person, agent)) !== null
}

export interface ShareRow { email: string, level: AccessLevel, grantedBy: string, createdAt: Date }

export async function listShares(db: Db, codename: string): Promise<ShareRow[]> {
  const rows = await db
    .select({
      email: agentCustomShares.email,
      level: agentCustomShares.level,
      grantedBy: agentCustomShares.grantedBy,
      createdAt: agentCustomShares.createdAt,
    })
    .from(agentCustomShares)
    .where(eq(agentCustomShares.codename, codename))
    .orderBy(asc(agentCustomShares.email))
  return rows.map(row => ({ ...row, level: row.level as AccessLevel }))
}

/** Shares (or changes the level of a share) with an active hub person; `full` on the agent needed. */
export async function shareAgent(db: Db, person: Person, name: string, input: z.output<typeof ShareBody>): Promise<ShareRow[]> {
  const { agent } = await agentAtLevel(db, person, name, 'full')
  if (input.email === agent.ownerEmail) throw new EngineError('owner_share', 'the owner already holds every right on the agent', 400)
  const [target] = await db.select({ active: hubUsers.active }).from(hubUsers).where(eq(hubUsers.email, input.email))
  if (!target || !target.active) throw new EngineError('unknown_person', `email: no active hub person ${input.email}`, 400)
  await db
    .insert(agentCustomShares)
    .values({ codename: name, email: input.email, level: input.level, grantedBy: person.email })
    .onConflictDoUpdate({
      target: [agentCustomShares.codename, agentCustomShares.email],
      set: { level: input.level, grantedBy: person.email, createdAt: new Date() },
    })
  return await listShares(db, name)
}

export async function revokeShare(db: Db, person: Person, name: string, email: string): Promise<ShareRow[]> {
  await agentAtLevel(db, person, name, 'full')
  const deleted = await db
    .delete(agentCustomShares)
    .where(and(eq(agentCustomShares.codename, name), eq(agentCustomShares.email, email)))
    .returning({ email: agentCustomShares.email })
  if (deleted.length === 0) throw new EngineError('not_found', `${name} is not shared with ${email}`, 404)
  return await listShares(db, name)
}

/** The agents shared with the person, with their level. */
export async function sharedWith(db: Db, email: string): Promise<Map<string, AccessLevel>> {
  const rows = await db
    .select({ codename: agentCustomShares.codename, level: agentCustomShares.level })
    .from(agentCustomShares)
    .where(eq(agentCustomShares.email, email))
  return new Map(rows.map(row => [row.codename, row.level as AccessLevel]))
}
