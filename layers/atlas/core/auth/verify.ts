// Sender authentication of one raw message, at ingestion: mailauth verifies the DKIM
// signatures, SPF (only with the inputs a trusted receiving server recorded: see headers.ts),
// DMARC alignment and the ARC chain, with an injectable DNS resolver (the system's by
// default); the trusted server's own Authentication-Results count too. A signature that leaves
// body bytes unsigned (`l=`) proves nothing of them, so it grants nothing; an ARC chain counts
// only when it validates and its sealer is listed (ATLAS_TRUSTED_ARC_SEALERS). The verdict:
//   fail — several From mailboxes (or none), a DMARC fail, or an aligned signature or SPF
//          check that fails with nothing aligned passing;
//   pass — DMARC pass, or a DKIM signature / SPF pass aligned with the From domain;
//   none — nothing could tell (no signature, no SPF inputs, no DMARC record).
// Flags (shown in the hub, and holding back an automatic spawn): multiple From mailboxes,
// Sender or Reply-To outside the From's domain, a display name holding another address,
// a failed DMARC, a lookalike of a known domain (added by the caller, which knows them).
import { authenticate, type AuthenticateResult, type DNSResolver } from 'mailauth'
import { withDeadline } from '#layers/base/core/deadline'
import type { SenderAuth } from '#db/schema/atlas'
import { clip } from '#layers/spawn/core/text'
import { aligned } from './align'
import { arcVouch } from './arc'
import { readHeaderFields, trustedTrace, type AuthResults, type HeaderField } from './headers'

export type { DNSResolver }

export interface SenderAuthOptions {
  resolver?: DNSResolver
  trustedAuthservIds: string[]
  /** Relays of ours below the trusted server, by IP or network (headers.ts). */
  internalRelays?: string[]
  /** Forwarders whose validated ARC seal is believed (arc.ts). */
  trustedArcSealers?: string[]
  timeoutMs: number
  /**
   * Mail without a trusted server's stamp on top: no privilege, or judged by its own signatures (config.ts; unset: unverified once a
   * trusted server is named).
   */
  unstampedMail?: 'unverified' | 'verify'
  /** The From as the parser read it (address and display name). */
  from: { address: string | null, name: string | null }
  now?: () => Date
}

export const FLAGS = {
  multipleFrom: 'multiple_from',
  noFrom: 'no_from',
  senderElsewhere: 'sender_elsewhere',
  replyToElsewhere: 'reply_to_elsewhere',
  displayNameSpoof: 'display_name_spoof',
  dmarcFail: 'dmarc_fail',
  dkimPartialBody: 'dkim_partial_body',
  lookalikeDomain: 'lookalike_domain',
  unstamped: 'unstamped',
} as const

function domainOfAddress(address: string): string {
  const at = address.lastIndexOf('@')
  return at >= 0 ? address.slice(at + 1).toLowerCase().replace(/>$/, '') : ''
}

const ADDRESS = /[^\s<>"'(),;:@]+@[^\s<>"'(),;:@]+\.[^\s<>"'(),;:@]+/g

function addressesIn(fields: HeaderField[], key: string): string[] {
  return fields.filter(f => f.key === key).flatMap(f => f.value.replace(/"[^"]*"/g, ' ').match(ADDRESS) ?? []).map(a => a.toLowerCase())
}

interface TrustedVerdicts {
  pass: string[]
  fail: string[]
  seen: string[]
  /** The trusted server's DMARC verdict for the From domain: it saw the mail on the wire, so it prevails. */
  dmarc: 'pass' | 'fail' | null
}

function trustedVerdicts(results: AuthResults[], fromDomain: string): TrustedVerdicts {
  const pass: string[] = []
  const fail: string[] = []
  const seen: string[] = []
  let dmarc: TrustedVerdicts['dmarc'] = null
  for (const header of results) {
    for (const entry of header.entries) {
      seen.push(`${header.authservId}: ${entry.method}=${entry.result}`)
      const from = entry.props['header.from']
      if (entry.method === 'dmarc' && aligned(from, fromDomain)) {
        if (entry.result === 'pass') {
          pass.push(`DMARC pass for ${fromDomain}, reported by ${header.authservId}`)
          dmarc ??= 'pass'
        }
        if (entry.result === 'fail') {
          fail.push(`DMARC fail for ${fromDomain}, reported by ${header.authservId}`)
          dmarc = 'fail'
        }
      }
      if (entry.method === 'dkim' && entry.result === 'pass' && aligned(entry.props['header.d'], fromDomain)) {
        pass.push(`DKIM pass for ${entry.props['header.d']}, aligned with ${fromDomain}, reported by ${header.authservId}`)
      }
      if (entry.method === 'spf' && entry.result === 'pass' && aligned(domainOfAddress(entry.props['smtp.mailfrom'] ?? ''), fromDomain)) {
        pass.push(`SPF pass for ${entry.props['smtp.mailfrom']}, aligned with ${fromDomain}, reported by ${header.authservId}`)
      }
    }
  }
  return { pass, fail, seen, dmarc }
}

type Trace = ReturnType<typeof trustedTrace>

/** What the stages find against the sender, in the order they find it (flags and reasons keep it). */
interface Findings {
  flags: Set<string>
  reasons: string[]
}

/** mailauth's checks, within the deadline; SPF only with the inputs the trusted server recorded. */
async function verifyWithMailauth(raw: Buffer, options: SenderAuthOptions, trace: Trace): Promise<AuthenticateResult> {
  return await withDeadline(authenticate(raw, {
    resolver: options.resolver,
    ...(trace.spf ?? {}),
    trustReceived: false,
    disableBimi: true,
    mta: 'atlas.synedre.local',
  }), options.timeoutMs, () => {
    throw new Error(`sender authentication took over ${options.timeoutMs} ms (ATLAS_AUTH_TIMEOUT_MS)`)
  })
}

function couldNotRun(error: unknown, checkedAt: string): SenderAuth {
  return {
    verdict: 'none', domain: null, flags: [], checkedAt,
    reasons: [`sender authentication could not run: ${clip((error as Error).message, 300)}`],
    results: { dkim: 'none', spf: 'none', dmarc: 'none', arc: 'none', trusted: [] },
  }
}

/** The author the headers claim (From, Sender, Reply-To, display name); returns the From's domain ('' without a single From). */
function readAuthor(result: AuthenticateResult, fields: HeaderField[], from: SenderAuthOptions['from'], { flags, reasons }: Findings): string {
  const fromAddresses = result.dkim.headerFrom ?? []
  const fromDomain = fromAddresses.length === 1 ? domainOfAddress(fromAddresses[0]!) : ''
  if (fromAddresses.length > 1 || result.dkim.fromFields > 1) {
    flags.add(FLAGS.multipleFrom)
    reasons.push(`the From header holds ${fromAddresses.length} mailboxes (${fromAddresses.slice(0, 5).join(', ')}): no single author to authenticate`)
  }
  if (fromAddresses.length === 0) {
    flags.add(FLAGS.noFrom)
    reasons.push('no From address')
  }

  for (const sender of addressesIn(fields, 'sender')) {
    if (fromDomain && !aligned(domainOfAddress(sender), fromDomain)) {
      flags.add(FLAGS.senderElsewhere)
      reasons.push(`Sender ${sender} is outside the From's domain ${fromDomain}`)
    }
  }
  for (const replyTo of addressesIn(fields, 'reply-to')) {
    if (fromDomain && !aligned(domainOfAddress(replyTo), fromDomain)) {
      flags.add(FLAGS.replyToElsewhere)
      reasons.push(`Reply-To ${replyTo} is outside the From's domain ${fromDomain}`)
    }
  }
  const named = (from.name ?? '').match(ADDRESS) ?? []
  const spoofed = named.find(address => address.toLowerCase() !== (from.address ?? '').toLowerCase())
  if (spoofed) {
    flags.add(FLAGS.displayNameSpoof)
    reasons.push(`the display name shows ${spoofed.toLowerCase()}, the address is ${from.address ?? '(none)'}`)
  }
  return fromDomain
}

// mailauth reports an unsigned message as one `none` row without a signing domain.
const signaturesOf = (result: AuthenticateResult) => (result.dkim.results ?? []).filter(s => s.signingDomain)
type Signature = ReturnType<typeof signaturesOf>[number]
// `l=` shorter than the body: whatever follows the signed length is anybody's text.
const unsignedBytes = (s: Signature) => Number((s.status as { underSized?: number }).underSized ?? 0)

/** What mailauth verified and the trusted server recorded, sorted by what it proves of the From domain. */
function readEvidence(result: AuthenticateResult, fields: HeaderField[], trace: Trace, fromDomain: string, options: SenderAuthOptions) {
  const signatures = signaturesOf(result)
  const spfStatus = trace.spf && result.spf ? result.spf.status.result : 'none'
  const spfDomain = trace.spf ? domainOfAddress(trace.spf.sender) || trace.spf.helo : ''
  return {
    signatures,
    dkimPartial: signatures.filter(s => s.status.result === 'pass' && aligned(s.signingDomain, fromDomain) && unsignedBytes(s) > 0),
    dkimPass: signatures.filter(s => s.status.result === 'pass' && aligned(s.signingDomain, fromDomain) && unsignedBytes(s) === 0),
    dkimAlignedFail: signatures.filter(s => s.status.result !== 'pass' && s.status.result !== 'none' && aligned(s.signingDomain, fromDomain)),
    dkimOther: signatures.filter(s => s.status.result === 'pass' && !aligned(s.signingDomain, fromDomain)),
    spfStatus,
    spfDomain,
    spfAlignedPass: spfStatus === 'pass' && aligned(spfDomain, fromDomain),
    dmarcStatus: result.dmarc ? result.dmarc.status.result : 'none',
    arcStatus: result.arc ? result.arc.status.result : 'none',
    trusted: trustedVerdicts(trace.results, fromDomain),
    arc: arcVouch(fields, result.arc || null, fromDomain, options.trustedArcSealers ?? []),
  }
}
type Evidence = ReturnType<typeof readEvidence>

/** One reason per signature, then SPF, DMARC, ARC and the trusted server's verdicts. */
function explainEvidence(evidence: Evidence, result: AuthenticateResult, trace: Trace, fromDomain: string, reasons: string[]): void {
  const { signatures, dkimPass, dkimAlignedFail, dkimPartial, dkimOther, spfStatus, spfAlignedPass, dmarcStatus, arcStatus, arc, trusted }
    = evidence
  for (const s of dkimPass) reasons.push(`DKIM signature of ${s.signingDomain} verified, aligned with the From domain`)
  for (const s of dkimAlignedFail) reasons.push(`DKIM signature of ${s.signingDomain} does not verify (${s.status.result}${s.status.comment ? `: ${s.status.comment}` : ''})`)
  for (const s of dkimPartial) reasons.push(`DKIM signature of ${s.signingDomain} verifies only the first part of the body: ${unsignedBytes(s)} byte(s) after it are unsigned (l=), so the mail is held as unverified`)
  for (const s of dkimOther) reasons.push(`DKIM signature of ${s.signingDomain} verified, but that domain is not the From's (${fromDomain || 'none'})`)
  if (signatures.length === 0) reasons.push('no DKIM signature')
  if (!trace.spf) reasons.push(`SPF not evaluated: ${trace.note}`)
  else reasons.push(`SPF ${spfStatus} for ${trace.spf.sender || trace.spf.helo} from ${trace.spf.ip}${spfStatus === 'pass' && !spfAlignedPass ? ' (not aligned with the From domain)' : ''}`)
  if (dmarcStatus !== 'none') reasons.push(`DMARC ${dmarcStatus}${result.dmarc ? ` (policy ${result.dmarc.policy ?? 'none'})` : ''}`)
  else reasons.push(result.dmarcSkipReason ? `DMARC not evaluated: ${String(result.dmarcSkipReason)}` : 'no DMARC record for the From domain')
  if (arcStatus !== 'none') reasons.push(arc.reason)
  reasons.push(...trusted.pass, ...trusted.fail)
}

/** The verdict the evidence gives, before the stamp is looked at. */
function judge(evidence: Evidence, fromDomain: string, { flags }: Findings): SenderAuth['verdict'] {
  const { dkimPartial, dkimPass, dkimAlignedFail, spfStatus, spfDomain, spfAlignedPass, dmarcStatus, trusted, arc } = evidence
  // A partial signature would pass DMARC (mailauth's and the trusted server's) and the trusted
  // server's DKIM check alike: with one present, only SPF and full-body signatures count.
  const partial = dkimPartial.length > 0
  if (partial) flags.add(FLAGS.dkimPartialBody)
  // A trusted sealer's first receiver saw the mail before the forwarder broke SPF or DKIM:
  // its pass overrides the DMARC fail the forwarding caused (RFC 8617's local policy override).
  const dmarcFailed = !arc.vouches && (trusted.dmarc ? trusted.dmarc === 'fail' : dmarcStatus === 'fail')
  if (dmarcFailed) flags.add(FLAGS.dmarcFail)
  const trustedPass = partial ? trusted.pass.filter(line => line.startsWith('SPF ')) : trusted.pass
  const passing = (dmarcStatus === 'pass' && !partial) || dkimPass.length > 0 || spfAlignedPass || trustedPass.length > 0 || arc.vouches
  const failing = trusted.dmarc !== 'pass' && (dkimAlignedFail.length > 0 || (spfStatus === 'fail' && aligned(spfDomain, fromDomain)))
  if (flags.has(FLAGS.multipleFrom) || flags.has(FLAGS.noFrom) || dmarcFailed) return 'fail'
  if (passing) return 'pass'
  if (failing) return 'fail'
  return 'none'
}

/**
 * Whoever can append to the mailbox (IMAP APPEND) or write to the drop folder writes every
 * header, signatures replayed from a real mail included: without the trusted server's stamp
 * on top, a pass proves the text, not that the mail came by the wire.
 */
function holdUnstamped(verdict: SenderAuth['verdict'], trace: Trace, options: SenderAuthOptions, { flags, reasons }: Findings): SenderAuth['verdict'] {
  const unstamped = options.unstampedMail ?? (options.trustedAuthservIds.length > 0 ? 'unverified' : 'verify')
  if (verdict !== 'pass' || trace.stamped || unstamped !== 'unverified') return verdict
  flags.add(FLAGS.unstamped)
  reasons.push(`held as unverified: ${trace.note}, so the mail may have been appended to the mailbox (IMAP APPEND) or dropped in the folder rather than received; ATLAS_TRUSTED_AUTHSERV_IDS names the receiving server, ATLAS_UNSTAMPED_MAIL=verify judges such mail by its own signatures`)
  return 'none'
}

export async function authenticateSender(raw: Buffer, options: SenderAuthOptions): Promise<SenderAuth> {
  const checkedAt = (options.now?.() ?? new Date()).toISOString()
  const fields = readHeaderFields(raw)
  const trace = trustedTrace(fields, options.trustedAuthservIds, options.internalRelays)
  let result: AuthenticateResult
  try {
    result = await verifyWithMailauth(raw, options, trace)
  }
  catch (error) {
    return couldNotRun(error, checkedAt)
  }

  const findings: Findings = { flags: new Set<string>(), reasons: [] }
  const fromDomain = readAuthor(result, fields, options.from, findings)
  const evidence = readEvidence(result, fields, trace, fromDomain, options)
  explainEvidence(evidence, result, trace, fromDomain, findings.reasons)
  const verdict = holdUnstamped(judge(evidence, fromDomain, findings), trace, options, findings)

  return {
    verdict,
    domain: verdict === 'pass' ? fromDomain : null,
    reasons: findings.reasons.map(reason => clip(reason, 500)).slice(0, 40),
    flags: [...findings.flags],
    results: {
      dkim: evidence.signatures.length === 0 ? 'none' : evidence.signatures.map(s => `${s.status.result} (${s.signingDomain})`).join(', '),
      spf: evidence.spfStatus,
      dmarc: evidence.dmarcStatus,
      arc: evidence.arcStatus,
      trusted: evidence.trusted.seen.slice(0, 20),
    },
    checkedAt,
  }
}
