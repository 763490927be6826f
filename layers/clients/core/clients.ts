// The studio's clients, read and changed from the hub. Every change is one transaction that
// also writes its hub_audit row (before and after), under one advisory lock so two people
// adding the same domain at once cannot both get it.
import { and, arrayOverlaps, asc, eq, ne, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/connection'
import { recordAudit } from '#db/audit'
import { clients, type Client, type ClientConfig } from '#db/schema/clients'
import type { ClientCreate, ClientPatch, ClientView } from './schemas'
import type { z } from 'zod'

/** The advisory lock key of client changes ("clie" in ASCII). */
const CLIENTS_LOCK = 0x636C6965

export type ClientChange
  = | { ok: true, client: ClientView }
    | { ok: false, code: 'not_found' }
    | { ok: false, code: 'domain_taken', domain: string, owner: string }
    | { ok: false, code: 'slug_taken', slug: string }
    | { ok: false, code: 'unknown_deploy', deploy: string, known: string[] }

/** A deploy name the environment does not define (readDeployCommands' names) is refused before anything is written. */
function unknownDeploy(deploy: string | null | undefined, deployNames: readonly string[]): ClientChange | null {
  if (deploy === null || deploy === undefined || deployNames.includes(deploy)) return null
  return { ok: false, code: 'unknown_deploy', deploy, known: [...deployNames] }
}

export function toView(row: Client): ClientView {
  const config = row.config ?? {}
  const ai = config.ai && typeof config.ai.provider === 'string' ? { provider: config.ai.provider, ...(config.ai.model ? { model: config.ai.model } : {}) } : null
  return {
    id: row.id, slug: row.slug, name: row.name, active: row.active, domains: row.domains,
    contacts: Array.isArray(row.contacts) ? row.contacts : [],
    repository: typeof config.repository === 'string' ? config.repository : null,
    branch: typeof config.branch === 'string' ? config.branch : null,
    deploy: typeof config.deploy === 'string' ? config.deploy : null,
    preprodUrl: typeof config.preprodUrl === 'string' ? config.preprodUrl : null,
    ai,
    hasMissionBrief: typeof config.missionBrief === 'string' && config.missionBrief.trim().length > 0,
    createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
  }
}

export async function listClients(db: Db): Promise<ClientView[]> {
  const rows = await db.select().from(clients).orderBy(sql`${clients.active} desc`, asc(clients.name))
  return rows.map(toView)
}

export async function getClient(db: Db, id: string): Promise<ClientView | null> {
  const [row] = await db.select().from(clients).where(eq(clients.id, id))
  return row ? toView(row) : null
}

/** A slug from a name: lower-case ASCII letters, digits and dashes. */
export function slugOf(name: string): string {
  const slug = name.normalize('NFKD').replace(/[\u0300-\u036F]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '')
  return slug || 'client'
}

/** The first of `domains` an active client other than `exceptId` already owns. */
async function takenDomain(tx: Tx, domains: string[], exceptId: string | null): Promise<{ domain: string, owner: string } | null> {
  if (domains.length === 0) return null
  const rows = await tx.select({ name: clients.name, domains: clients.domains }).from(clients)
    .where(and(eq(clients.active, true), exceptId ? ne(clients.id, exceptId) : undefined, arrayOverlaps(clients.domains, domains)))
  for (const domain of domains) {
    const owner = rows.find(row => row.domains.includes(domain))
    if (owner) return { domain, owner: owner.name }
  }
  return null
}

const unique = (values: string[]) => [...new Set(values)]

type ConfigInput = {
  repository?: string | null
  branch?: string | null
  deploy?: string | null
  preprodUrl?: string | null
  ai?: { provider: string, model?: string } | null
}

function configWith(config: ClientConfig, input: ConfigInput): ClientConfig {
  const { repository, branch, deploy, preprodUrl, ai, ...rest } = config
  // A field sent as null is cleared; one not sent keeps its value.
  const keep = <T>(sent: T | null | undefined, current: unknown) => sent === undefined ? current : sent ?? undefined
  const next: ClientConfig = { ...rest }
  const values = {
    repository: keep(input.repository, repository),
    branch: keep(input.branch, branch),
    deploy: keep(input.deploy, deploy),
    preprodUrl: keep(input.preprodUrl, preprodUrl),
    ai: keep(input.ai, ai),
  }
  for (const [key, value] of Object.entries(values)) if (value !== undefined) next[key] = value
  return next
}

export async function createClient(
  db: Db,
  input: z.output<typeof ClientCreate>,
  actor: string,
  deployNames: readonly string[],
): Promise<ClientChange> {
  const refused = unknownDeploy(input.deploy, deployNames)
  if (refused) return refused
  return await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLIENTS_LOCK})`)
    const domains = unique(input.domains)
    const taken = await takenDomain(tx, domains, null)
    if (taken) return { ok: false, code: 'domain_taken', ...taken }
    let slug = input.slug ?? slugOf(input.name)
    const existing = new Set(
      (
        await tx
          .select({ slug: clients.slug })
          .from(clients)
          .where(sql`${clients.slug} like ${`${slug}%`}`)
      ).map(row => row.slug),
    )
    if (existing.has(slug)) {
      if (input.slug) return { ok: false, code: 'slug_taken', slug }
      let n = 2
      while (existing.has(`${slug}-${n}`)) n++
      slug = `${slug}-${n}`
    }
    const [row] = await tx
      .insert(clients)
      .values({ slug, name: input.name, domains, contacts: input.contacts, config: configWith({}, input) })
      .returning()
    const client = toView(row!)
    await recordAudit(tx, { actor, action: 'client_created', target: slug, details: { after: auditable(client) } })
    return { ok: true, client }
  })
}

export async function updateClient(
  db: Db,
  id: string,
  patch: z.output<typeof ClientPatch>,
  actor: string,
  deployNames: readonly string[],
): Promise<ClientChange> {
  const refused = unknownDeploy(patch.deploy, deployNames)
  if (refused) return refused
  return await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLIENTS_LOCK})`)
    const [row] = await tx.select().from(clients).where(eq(clients.id, id)).for('update')
    if (!row) return { ok: false, code: 'not_found' }
    const domains = patch.domains ? unique(patch.domains) : undefined
    if (domains && row.active) {
      const taken = await takenDomain(tx, domains, id)
      if (taken) return { ok: false, code: 'domain_taken', ...taken }
    }
    const [updated] = await tx
      .update(clients)
      .set({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(domains ? { domains } : {}),
        ...(patch.contacts ? { contacts: patch.contacts } : {}),
        config: configWith(row.config ?? {}, patch),
        updatedAt: new Date(),
      })
      .where(eq(clients.id, id))
      .returning()
    const client = toView(updated!)
    await recordAudit(tx, {
      actor,
      action: 'client_updated',
      target: row.slug,
      details: { before: auditable(toView(row)), after: auditable(client) },
    })
    return { ok: true, client }
  })
}

/** Deactivates (the classifier stops attributing mail to it) or reactivates a client. */
export async function setClientActive(db: Db, id: string, active: boolean, actor: string): Promise<ClientChange> {
  return await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLIENTS_LOCK})`)
    const [row] = await tx.select().from(clients).where(eq(clients.id, id)).for('update')
    if (!row) return { ok: false, code: 'not_found' }
    if (row.active === active) return { ok: true, client: toView(row) }
    if (active) {
      const taken = await takenDomain(tx, row.domains, id)
      if (taken) return { ok: false, code: 'domain_taken', ...taken }
    }
    const [updated] = await tx.update(clients).set({ active, updatedAt: new Date() }).where(eq(clients.id, id)).returning()
    await recordAudit(tx, { actor, action: active ? 'client_reactivated' : 'client_deactivated', target: row.slug, details: { name: row.name } })
    return { ok: true, client: toView(updated!) }
  })
}

/** What the audit keeps of a client: its fields, without the timestamps. */
function auditable(client: ClientView): Record<string, unknown> {
  const { createdAt: _created, updatedAt: _updated, ...fields } = client
  return fields
}
