// Who may start an agent, and what privileges a sender has: both follow the authentication of
// the From address (core/auth), never the header alone.
//   - privileges: founder overrides, team shortcuts and tenant attribution need `pass`;
//   - admission (the ONE rule, tested case by case in tests/unit/admission.test.ts): a
//     message whose intent would start an agent starts it automatically only for an
//     authenticated team member or an authenticated contact of a known (active) tenant,
//     with no warning flag on the mail; every other one waits in `awaiting_approval` with
//     the reason, until an operator approves or rejects it in the hub.
import type { SenderAuth } from '#db/schema/atlas'
import type { TenantMatch } from './tenants'
import { normaliseAddress } from '#layers/spawn/core/text'

/** The intents a spawn is for (noise and conseil never start an agent). */
export const SPAWN_INTENTS = ['run', 'chantier', 'question', 'negociation'] as const

export function isSpawnIntent(intent: string): boolean {
  return (SPAWN_INTENTS as readonly string[]).includes(intent)
}

/** Flags that hold back an automatic spawn even for an authenticated sender. */
export const HOLDING_FLAGS = ['multiple_from', 'no_from', 'sender_elsewhere', 'reply_to_elsewhere', 'display_name_spoof', 'dmarc_fail', 'lookalike_domain']

export interface SenderStanding {
  address: string
  authenticated: boolean
  verdict: SenderAuth['verdict'] | 'unchecked'
  founder: boolean
  team: boolean
  /** The tenant, only for an authenticated sender. */
  tenant: TenantMatch | null
  /** The tenant the From address claims, authenticated or not (for the reason). */
  claimedTenant: TenantMatch | null
  /** Team or founder address claimed without authentication. */
  claimedTeam: boolean
  flags: string[]
  reasons: string[]
}

export function senderStanding(
  auth: SenderAuth | null,
  fromAddress: string | null,
  people: { founderEmails: string[], teamEmails: string[] },
  tenantOfAddress: TenantMatch | null,
): SenderStanding {
  const address = normaliseAddress(fromAddress)
  const authenticated = auth?.verdict === 'pass' && address !== ''
  const isFounder = address !== '' && people.founderEmails.includes(address)
  const isTeam = isFounder || (address !== '' && people.teamEmails.includes(address))
  return {
    address,
    authenticated,
    verdict: auth?.verdict ?? 'unchecked',
    founder: authenticated && isFounder,
    team: authenticated && isTeam,
    tenant: authenticated ? tenantOfAddress : null,
    claimedTenant: tenantOfAddress,
    claimedTeam: isTeam,
    flags: auth?.flags ?? [],
    reasons: auth?.reasons ?? ['the sender was never authenticated (stored before sender authentication existed)'],
  }
}

export type Admission
  = | { admission: 'auto', reason: string }
    | { admission: 'awaiting', reason: string }
    | { admission: null, reason: string }

export function decideAdmission(intent: string, standing: SenderStanding): Admission {
  if (!isSpawnIntent(intent)) return { admission: null, reason: `${intent} never starts an agent` }
  const who = standing.address || '(no address)'
  if (!standing.authenticated) {
    const claim = standing.claimedTeam ? ', although it claims a team address' : standing.claimedTenant ? `, although it claims to be from ${standing.claimedTenant.name}` : ''
    const why = standing.verdict === 'unchecked' ? 'was never checked' : `is ${standing.verdict}`
    return { admission: 'awaiting', reason: `the sender ${who} is not authenticated (verdict ${why}${claim}): ${standing.reasons[0] ?? ''}`.trim() }
  }
  const holding = standing.flags.filter(flag => HOLDING_FLAGS.includes(flag))
  if (holding.length > 0) return { admission: 'awaiting', reason: `the sender ${who} is authenticated, but the mail is flagged (${holding.join(', ')}): a person checks it first` }
  if (standing.team) return { admission: 'auto', reason: `authenticated team member ${who}` }
  if (standing.tenant) return { admission: 'auto', reason: `authenticated contact of ${standing.tenant.name} (${standing.tenant.slug}, by ${standing.tenant.matchedBy})` }
  return { admission: 'awaiting', reason: `the sender ${who} is authenticated but is neither a team member nor a contact of a known client` }
}
