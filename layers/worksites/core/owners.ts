// Owners: an agent of the registry (by codename) or a hub user (by id). An owner that does not
// exist is refused before anything is written (400 unknown_owner); the foreign keys would
// refuse it too, but with a database error instead of a reason.
import { eq, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { agents } from '#db/schema/agents'
import { hubUsers } from '#db/schema/hub'
import type { Owner, OwnerView } from '../shared/api'
import { WorksitesError } from './errors'

export interface OwnerColumns { ownerAgent: string | null, ownerUserId: string | null }

/** The owner's columns, after checking that it exists. undefined: the owner is left as it is. */
export async function ownerColumnsFor(db: Pick<Db, 'select'>, owner: Owner | undefined): Promise<OwnerColumns | undefined> {
  if (owner === undefined) return undefined
  if (owner === null) return { ownerAgent: null, ownerUserId: null }
  if (owner.kind === 'agent') {
    const [agent] = await db.select({ codename: agents.codename }).from(agents).where(eq(agents.codename, owner.codename)).limit(1)
    if (!agent) throw new WorksitesError(400, 'unknown_owner', `No agent "${owner.codename}" in the registry.`, { owner })
    return { ownerAgent: agent.codename, ownerUserId: null }
  }
  const [user] = await db.select({ id: hubUsers.id }).from(hubUsers).where(eq(hubUsers.id, owner.id)).limit(1)
  if (!user) throw new WorksitesError(400, 'unknown_owner', `No hub user ${owner.id}.`, { owner })
  return { ownerAgent: null, ownerUserId: user.id }
}

/** The owner as the API returns it, built in SQL from the row's alias (joins agents a_o and hub_users u_o). */
export function ownerJson(alias: string): SQL {
  const t = sql.raw(alias)
  return sql`case
    when ${t}.owner_agent is not null then json_build_object('kind', 'agent', 'codename', ${t}.owner_agent, 'name', (select nickname from agents where codename = ${t}.owner_agent))
    when ${t}.owner_user_id is not null then json_build_object('kind', 'user', 'id', ${t}.owner_user_id, 'name', (select email from hub_users where id = ${t}.owner_user_id))
  end`
}

/** The owner filter of a list: `agent:<codename>`, `user:<id>` or `none`. */
export function ownerFilter(alias: string, owner: string | undefined): SQL {
  const t = sql.raw(alias)
  if (!owner) return sql`true`
  if (owner === 'none') return sql`(${t}.owner_agent is null and ${t}.owner_user_id is null)`
  const [kind, value] = [owner.slice(0, owner.indexOf(':')), owner.slice(owner.indexOf(':') + 1)]
  if (kind === 'agent' && value) return sql`${t}.owner_agent = ${value}`
  if (kind === 'user' && /^[0-9a-f-]{36}$/i.test(value)) return sql`${t}.owner_user_id = ${value}::uuid`
  throw new WorksitesError(400, 'bad_input', 'owner must be agent:<codename>, user:<id> or none.', { field: 'owner' })
}

export function parseOwner(value: unknown): OwnerView {
  const parsed = typeof value === 'string' ? JSON.parse(value) as OwnerView : value as OwnerView
  return parsed ?? null
}
