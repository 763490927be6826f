// ARC (RFC 8617) for forwarded mail: a forwarder seals what its own receiving server verified
// before forwarding broke SPF or the signature. mailauth validates the chain; this file decides
// whether to believe it. Only a chain that validates, sealed last by a forwarder the studio
// lists (ATLAS_TRUSTED_ARC_SEALERS), vouches for the author — and only with what that sealer's
// ARC-Authentication-Results say of the From domain. Anyone can seal a chain of their own.
import type { AuthenticateResult } from 'mailauth'
import { aligned } from './align'
import { parseAuthenticationResults, type HeaderField } from './headers'

export interface ArcVouch {
  vouches: boolean
  /** One line for the sender's reasons. */
  reason: string
}

/** The `tag=value` of one ARC header field (`i`, `d`, …), lower-cased. */
function tag(value: string, name: string): string | null {
  return new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*([^;\\s]+)`, 'i').exec(value)?.[1]?.toLowerCase() ?? null
}

function sealerListed(sealer: string, listed: string[]): boolean {
  return listed.some(domain => sealer === domain || sealer.endsWith(`.${domain}`))
}

/** What the last sealer's ARC-Authentication-Results say of the From domain, as reasons (empty: nothing aligned passed). */
function vouchedPasses(value: string, fromDomain: string): string[] {
  const results = parseAuthenticationResults(value.replace(/^\s*i\s*=\s*\d+\s*;/i, ''))
  const passes: string[] = []
  for (const entry of results.entries) {
    if (entry.result !== 'pass') continue
    if (entry.method === 'dmarc' && aligned(entry.props['header.from'], fromDomain)) passes.push(`DMARC pass for ${fromDomain}`)
    if (entry.method === 'dkim' && aligned(entry.props['header.d'] ?? entry.props['header.i']?.replace(/^.*@/, ''), fromDomain)) passes.push(`DKIM pass for ${fromDomain}`)
    if (entry.method === 'spf' && aligned(entry.props['smtp.mailfrom']?.replace(/^.*@/, ''), fromDomain)) passes.push(`SPF pass for ${entry.props['smtp.mailfrom']}`)
  }
  return passes
}

export function arcVouch(fields: HeaderField[], arc: AuthenticateResult['arc'] | null, fromDomain: string, trustedSealers: string[]): ArcVouch {
  const status = arc ? arc.status.result : 'none'
  if (status !== 'pass') return { vouches: false, reason: `ARC chain ${status} (shown only: a chain that does not validate vouches for nobody)` }
  const instance = String((arc as { i?: number | false }).i ?? '')
  const ofInstance = (key: string) => fields.find(f => f.key === key && tag(f.value, 'i') === instance)?.value ?? ''
  const sealer = tag(ofInstance('arc-seal'), 'd') ?? '(unknown)'
  if (!sealerListed(sealer, trustedSealers)) {
    return { vouches: false, reason: `ARC chain pass, sealed by ${sealer}: not a trusted sealer (ATLAS_TRUSTED_ARC_SEALERS), so shown only` }
  }
  const passes = fromDomain ? vouchedPasses(ofInstance('arc-authentication-results'), fromDomain) : []
  if (passes.length === 0) return { vouches: false, reason: `ARC chain pass, sealed by ${sealer} (trusted), but its first receiver saw nothing aligned with ${fromDomain || 'the From'} pass` }
  return { vouches: true, reason: `ARC chain pass, sealed by ${sealer} (a trusted sealer), whose receiver saw ${passes.join(', ')} before forwarding` }
}
