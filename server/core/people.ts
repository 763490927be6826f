// The people who may sign in, as the founder manages them from the hub: create (with a password
// typed by the founder, or as an invitation whose one-time link the founder hands over), rename,
// change a role, deactivate or reactivate, and a reset link. Each change is one transaction
// under one advisory lock (two founders demoting each other at once cannot leave none), with
// its hub_audit row (before and after). The last active founder can be neither demoted nor
// deactivated.
import { randomBytes } from 'node:crypto'
import { and, asc, count, eq, ne, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/connection'
import { recordAudit } from '#db/audit'
import { hubUsers, type HubUser } from '#db/schema/index'
import type { PersonActive, PersonCreate, PersonPatch, PersonView } from '#shared/people'
import type { z } from 'zod'
import { hashPassword } from './passwords'
import { passwordProblem } from './password-policy'
import { issueLink, type IssuedLink } from './one-time-links'

/** The advisory lock key of people changes ("peop" in ASCII). */
const PEOPLE_LOCK = 0x70656F70

export type PeopleChange
  = | { ok: true, person: PersonView, link?: IssuedLink }
    | { ok: false, code: 'not_found' | 'email_taken' | 'last_founder' | 'weak_password', message: string }

/** Created by invitation and no password set yet: it has invitation links, none used. */
// (Spelled out: drizzle writes a column of a one-table select unqualified, which the subquery would read as its own.)
const invited = sql<boolean>`(exists (select 1 from hub_one_time_links l where l.user_id = hub_users.id and l.kind = 'invitation')
  and not exists (select 1 from hub_one_time_links l where l.user_id = hub_users.id and l.used_at is not null))`

const viewColumns = {
  id: hubUsers.id, email: hubUsers.email, name: hubUsers.name, role: hubUsers.role, active: hubUsers.active,
  createdAt: hubUsers.createdAt, lastLoginAt: hubUsers.lastLoginAt, invited,
}

type ViewRow = { [K in keyof typeof viewColumns]: K extends 'invited' ? boolean : HubUser[Exclude<K, 'invited'>] }

function toView(row: ViewRow): PersonView {
  return {
    id: row.id, email: row.email, name: row.name, role: row.role, active: row.active, invited: Boolean(row.invited),
    createdAt: row.createdAt.toISOString(), lastSignInAt: row.lastLoginAt ? row.lastLoginAt.toISOString() : null,
  }
}

export async function listPeople(db: Db): Promise<PersonView[]> {
  const rows = await db.select(viewColumns).from(hubUsers).orderBy(sql`${hubUsers.active} desc`, asc(hubUsers.name), asc(hubUsers.email))
  return rows.map(toView)
}

async function viewOf(tx: Tx, id: string): Promise<PersonView> {
  const [row] = await tx.select(viewColumns).from(hubUsers).where(eq(hubUsers.id, id))
  return toView(row!)
}

const notFound = { ok: false, code: 'not_found', message: 'No such person.' } as const

async function lockedPerson(tx: Tx, id: string): Promise<HubUser | undefined> {
  await tx.execute(sql`select pg_advisory_xact_lock(${PEOPLE_LOCK})`)
  const [row] = await tx.select().from(hubUsers).where(eq(hubUsers.id, id)).for('update')
  return row
}

/** Whether an active founder other than `id` remains. */
async function otherFounderRemains(tx: Tx, id: string): Promise<boolean> {
  const [row] = await tx.select({ n: count() }).from(hubUsers).where(and(eq(hubUsers.role, 'founder'), eq(hubUsers.active, true), ne(hubUsers.id, id)))
  return (row?.n ?? 0) > 0
}

const lastFounder = (what: string) => ({ ok: false, code: 'last_founder', message: `This is the last active founder: ${what} would leave the hub without one. Make someone else founder first.` }) as const

export async function createPerson(db: Db, input: z.output<typeof PersonCreate>, actor: string, now = new Date()): Promise<PeopleChange> {
  const email = input.email
  const problem = input.password !== undefined ? passwordProblem(input.password, email) : null
  if (problem) return { ok: false, code: 'weak_password', message: `The password is refused: ${problem}.` }
  // An invitation's account has a password no one knows (the same scrypt work at sign-in) until its link is used.
  const passwordHash = await hashPassword(input.password ?? randomBytes(32).toString('base64url'))
  return await db.transaction(async (tx): Promise<PeopleChange> => {
    await tx.execute(sql`select pg_advisory_xact_lock(${PEOPLE_LOCK})`)
    const [row] = await tx.insert(hubUsers).values({ email, name: input.name || email.split('@')[0]!, role: input.role, passwordHash })
      .onConflictDoNothing({ target: hubUsers.email }).returning()
    if (!row) return { ok: false, code: 'email_taken', message: `An account with the email ${email} already exists.` }
    const link = input.password === undefined ? await issueLink(tx, row.id, 'invitation', actor, now) : undefined
    const person = await viewOf(tx, row.id)
    await recordAudit(tx, { actor, action: 'user_created', target: email, details: { after: auditable(person), by: link ? 'invitation' : 'password', ...(link ? { linkExpiresAt: link.expiresAt.toISOString() } : {}) } })
    return { ok: true, person, ...(link ? { link } : {}) }
  })
}

export async function updatePerson(db: Db, id: string, patch: z.output<typeof PersonPatch>, actor: string): Promise<PeopleChange> {
  return await db.transaction(async (tx): Promise<PeopleChange> => {
    const row = await lockedPerson(tx, id)
    if (!row) return notFound
    if (patch.role && patch.role !== 'founder' && row.role === 'founder' && row.active && !await otherFounderRemains(tx, id)) return lastFounder('changing its role')
    const before = await viewOf(tx, id)
    await tx
      .update(hubUsers)
      .set({ ...(patch.name !== undefined ? { name: patch.name } : {}), ...(patch.role ? { role: patch.role } : {}) })
      .where(eq(hubUsers.id, id))
    const person = await viewOf(tx, id)
    await recordAudit(tx, { actor, action: 'user_updated', target: row.email, details: { before: auditable(before), after: auditable(person) } })
    return { ok: true, person }
  })
}

/** Deactivating ends every session of the account at once (its session version moves on). */
export async function setPersonActive(db: Db, id: string, { active }: z.output<typeof PersonActive>, actor: string): Promise<PeopleChange> {
  return await db.transaction(async (tx): Promise<PeopleChange> => {
    const row = await lockedPerson(tx, id)
    if (!row) return notFound
    if (row.active === active) return { ok: true, person: await viewOf(tx, id) }
    if (!active && row.role === 'founder' && !await otherFounderRemains(tx, id)) return lastFounder('deactivating it')
    await tx.update(hubUsers).set({ active, ...(active ? {} : { sessionVersion: sql`${hubUsers.sessionVersion} + 1` }) }).where(eq(hubUsers.id, id))
    await recordAudit(tx, { actor, action: active ? 'user_reactivated' : 'user_deactivated', target: row.email, details: { before: { active: row.active }, after: { active } } })
    return { ok: true, person: await viewOf(tx, id) }
  })
}

/** A new one-time link to set the password: an invitation again while none was used, else a reset. */
export async function createResetLink(db: Db, id: string, actor: string, now = new Date()): Promise<PeopleChange> {
  return await db.transaction(async (tx): Promise<PeopleChange> => {
    const row = await lockedPerson(tx, id)
    if (!row) return notFound
    const before = await viewOf(tx, id)
    const link = await issueLink(tx, id, before.invited ? 'invitation' : 'reset', actor, now)
    await recordAudit(tx, { actor, action: 'password_link_created', target: row.email, details: { kind: link.kind, expiresAt: link.expiresAt.toISOString() } })
    return { ok: true, person: before, link }
  })
}

/** What the audit keeps of a person: no timestamps. */
function auditable(person: PersonView): Record<string, unknown> {
  const { createdAt: _created, lastSignInAt: _lastSignIn, ...fields } = person
  return fields
}
