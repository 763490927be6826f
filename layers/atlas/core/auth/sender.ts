// The ingestion step of sender authentication: verify (verify.ts), then flag a From domain
// that imitates a domain the studio knows (its tenants' and its team's). Never throws: a
// failure to authenticate is a `none` verdict that says why, and the message is stored anyway.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { SenderAuth } from '#db/schema/atlas'
import type { AtlasConfig } from '../config'
import { domainOf } from '#layers/spawn/core/text'
import { lookalikeOf } from './lookalike'
import { authenticateSender, FLAGS, type DNSResolver } from './verify'

type Queryable = Pick<Db, 'execute'>

/** The domains a lookalike would imitate: active tenants' domains and the team's. */
export async function knownDomains(db: Queryable, config: AtlasConfig): Promise<string[]> {
  const rows = await db.execute<{ domain: string }>(sql`select distinct lower(d.name) as domain from clients, unnest(domains) as d(name) where active`)
  return [...new Set([...rows.map(row => row.domain), ...config.classifier.teamEmails.map(email => domainOf(email))].filter(Boolean))]
}

/** Adds the lookalike flag when the From domain imitates a known one (in place). */
export function flagLookalike(auth: SenderAuth, fromAddress: string | null, known: string[]): SenderAuth {
  const domain = domainOf(fromAddress)
  const imitated = domain ? lookalikeOf(domain, known) : null
  if (imitated) {
    auth.flags.push(FLAGS.lookalikeDomain)
    auth.reasons.push(`the From domain ${domain} looks like ${imitated} but is not it`)
  }
  return auth
}

export async function verifySender(
  db: Queryable,
  raw: Buffer,
  from: { address: string | null, name: string | null },
  config: AtlasConfig,
  resolver?: DNSResolver,
): Promise<SenderAuth> {
  const auth = await authenticateSender(raw, { resolver, from, ...config.senderAuth })
  return flagLookalike(auth, from.address, await knownDomains(db, config))
}
