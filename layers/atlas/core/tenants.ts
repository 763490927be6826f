// Which tenant a sender belongs to: the explicit domain lookup (clients.domains) first,
// then the registered contacts (clients.contacts[].email). Active tenants only: a former
// client writing again is treated as anyone else.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { domainOf, normaliseAddress } from '#layers/spawn/core/text'

export interface TenantMatch {
  id: string
  slug: string
  name: string
  matchedBy: 'domain' | 'contact'
}

type Queryable = Pick<Db, 'execute'>

export async function resolveTenant(db: Queryable, address: string | null | undefined): Promise<TenantMatch | null> {
  const email = normaliseAddress(address)
  const domain = domainOf(email)
  if (!email || !domain) return null
  const byDomain = await db.execute<{ id: string, slug: string, name: string }>(sql`
    select id, slug, name from clients
    where active and exists (select 1 from unnest(domains) as d(name) where lower(d.name) = ${domain})
    order by created_at, id limit 1`)
  if (byDomain[0]) return { ...byDomain[0], matchedBy: 'domain' }
  const byContact = await db.execute<{ id: string, slug: string, name: string }>(sql`
    select id, slug, name from clients
    where active and exists (
      select 1 from jsonb_array_elements(case when jsonb_typeof(contacts) = 'array' then contacts else '[]'::jsonb end) as c(entry)
      where lower(c.entry ->> 'email') = ${email})
    order by created_at, id limit 1`)
  if (byContact[0]) return { ...byContact[0], matchedBy: 'contact' }
  return null
}
