// Sender authentication, table-driven, over mails signed at run time with keys generated here
// and a loopback DNS zone. Each row states the verdict, the flags, the privileges the sender
// gets (founder override, team shortcuts, tenant attribution) and the spawn admission.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { domainToASCII } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { decideAdmission, senderStanding } from '../../core/admission'
import { flagLookalike } from '../../core/auth/sender'
import { authenticateSender } from '../../core/auth/verify'
import { readAtlasConfig } from '../../core/config'
import { parseMessage } from '../../core/ingest/parse'
import type { TenantMatch } from '../../core/tenants'
import { compose } from '../fixtures/mail'
import { createZone, type Sealer, type Signer } from '../fixtures/sender-auth'

const FOUNDER = 'alex@studio.example'
const TEAM = 'team@studio.example'
const MX = 'mx.studio.example'
const IDN = domainToASCII('studіo.example')
const KNOWN = ['studio.example', 'client.example']
const CLIENT: TenantMatch = { id: '00000000-0000-0000-0000-00000000c11e', slug: 'client', name: 'Client SA', matchedBy: 'domain' }
const RELAY = '10.0.0.25'
// The table judges signatures of mail that reached no server (ATLAS_UNSTAMPED_MAIL=verify);
// the default for such mail is proven on its own below.
const ENV = { ATLAS_FOUNDER_EMAILS: FOUNDER, INTERNAL_TEAM_EMAILS: TEAM, ATLAS_TRUSTED_AUTHSERV_IDS: MX, ATLAS_INTERNAL_RELAYS: RELAY, ATLAS_TRUSTED_ARC_SEALERS: 'forwarder.example' }
const config = readAtlasConfig({ ...ENV, ATLAS_UNSTAMPED_MAIL: 'verify' })
const dir = mkdtempSync(join(tmpdir(), 'sender-auth-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const zone = createZone()
zone.txt('_dmarc.studio.example', 'v=DMARC1; p=reject')
zone.txt('_dmarc.client.example', 'v=DMARC1; p=quarantine')
zone.txt('client.example', 'v=spf1 ip4:192.0.2.0/24 -all')
const signers: Record<string, Signer> = {
  'studio.example': zone.dkimKey('studio.example'),
  'client.example': zone.dkimKey('client.example'),
  'evil.example': zone.dkimKey('evil.example'),
  'stranger.example': zone.dkimKey('stranger.example'),
  'stud1o.example': zone.dkimKey('stud1o.example'),
  // studіo.example with a Cyrillic і, as it travels: an IDN A-label.
  [IDN]: zone.dkimKey(IDN),
}
const sealers: Record<string, Sealer> = {
  'forwarder.example': zone.arcSealer('forwarder.example'),
  'lists.attacker.example': zone.arcSealer('lists.attacker.example'),
}
/** A line the sender writes into its own headers, under whatever the receiving side adds. */
const written = (line: string, raw: Buffer) => Buffer.concat([Buffer.from(`${line}\r\n`), raw])
/** The founder's signed mail through a forwarder that adds a footer (breaking the signature), then seals what its receiver saw. */
async function forwarded(sealer: string): Promise<Buffer> {
  const signed = await signers['studio.example']!(await compose({ from: `Alex <${FOUNDER}>`, text: 'Peux-tu relancer le déploiement ?' }))
  const footered = Buffer.concat([signed, Buffer.from('-- \r\nSent through the forwarder\r\n')])
  return await sealers[sealer]!(footered, 'dkim=pass header.d=studio.example header.s=test; spf=pass smtp.mailfrom=alex@studio.example; dmarc=pass header.from=studio.example')
}

/** What the receiving server puts on top: its Received (client IP, HELO), Return-Path, maybe its Authentication-Results. */
function received(raw: Buffer, options: { ip?: string, helo?: string, returnPath?: string, results?: string, by?: string } = {}): Buffer {
  const lines = [
    ...(options.returnPath ? [`Return-Path: <${options.returnPath}>`] : []),
    ...(options.results ? [`Authentication-Results: ${options.results}`] : []),
    `Received: from ${options.helo ?? 'mail.client.example'} (${options.helo ?? 'mail.client.example'} [${options.ip ?? '192.0.2.10'}]) by ${options.by ?? MX} with ESMTPS id 4Xy; Mon, 2 Nov 2026 09:00:05 +0000`,
  ]
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n`), raw])
}

const fromLine = (raw: Buffer, from: string) => Buffer.from(raw.toString('latin1').replace(/^From: .*$/m, `From: ${from}`), 'latin1')

interface Row {
  name: string
  mail: () => Promise<Buffer>
  tenant?: TenantMatch
  verdict: 'pass' | 'fail' | 'none'
  flags: string[]
  privileges: { founder: boolean, team: boolean, tenant: boolean }
  admission: 'auto' | 'awaiting'
}

const NONE = { founder: false, team: false, tenant: false }

const rows: Row[] = [
  {
    name: 'valid DKIM aligned with From, a tenant contact',
    mail: async () => signers['client.example']!(await compose({ from: 'Claire <claire@client.example>' })),
    tenant: CLIENT, verdict: 'pass', flags: [], privileges: { founder: false, team: false, tenant: true }, admission: 'auto',
  },
  {
    name: 'valid DKIM aligned with From, the founder',
    mail: async () => signers['studio.example']!(await compose({ from: `Alex <${FOUNDER}>` })),
    verdict: 'pass', flags: [], privileges: { founder: true, team: true, tenant: false }, admission: 'auto',
  },
  {
    name: 'valid DKIM of another domain, From a client whose DMARC says quarantine',
    mail: async () => signers['evil.example']!(await compose({ from: 'Claire <claire@client.example>' })),
    tenant: CLIENT, verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'valid DKIM of another domain, From a domain with no DMARC record',
    mail: async () => signers['evil.example']!(await compose({ from: 'Bob <bob@nodmarc.example>' })),
    verdict: 'none', flags: [], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'no signature, SPF pass from the trusted server\'s Received and Return-Path',
    mail: async () => received(await compose({ from: 'Claire <claire@client.example>' }), { returnPath: 'bounce@client.example', ip: '192.0.2.10' }),
    tenant: CLIENT, verdict: 'pass', flags: [], privileges: { founder: false, team: false, tenant: true }, admission: 'auto',
  },
  {
    name: 'no signature, SPF fail (an IP the client does not list)',
    mail: async () => received(await compose({ from: 'Claire <claire@client.example>' }), { returnPath: 'bounce@client.example', ip: '203.0.113.66', helo: 'spoofer.example' }),
    tenant: CLIENT, verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'no signature, SPF data in a Received stamped by an untrusted server: SPF not evaluated',
    mail: async () => received(await compose({ from: 'Claire <claire@client.example>' }), { returnPath: 'bounce@client.example', ip: '192.0.2.10', by: 'relay.attacker.example' }),
    tenant: CLIENT, verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'DMARC reject: the founder\'s address, unsigned, Reply-To and Sender elsewhere',
    mail: async () => compose({ from: `Alex <${FOUNDER}>`, replyTo: 'mallory@evil.example', sender: 'mallory@evil.example' }),
    verdict: 'fail', flags: ['dmarc_fail', 'sender_elsewhere', 'reply_to_elsewhere'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'a broken body hash (the body changed after signing)',
    mail: async () => {
      const signed = await signers['client.example']!(await compose({ from: 'Claire <claire@client.example>', text: 'Merci de corriger le formulaire.' }))
      return Buffer.from(signed.toString('latin1').replace('corriger le formulaire', 'supprimer la base'), 'latin1')
    },
    tenant: CLIENT, verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'two From mailboxes, the founder\'s first, validly signed by the studio',
    mail: async () => signers['studio.example']!(fromLine(await compose(), `${FOUNDER}, mallory@evil.example`)),
    verdict: 'fail', flags: ['multiple_from'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'Reply-To and Sender elsewhere on an authenticated client mail',
    mail: async () => signers['client.example']!(await compose({ from: 'Claire <claire@client.example>', replyTo: 'mallory@evil.example', sender: 'mallory@evil.example' })),
    tenant: CLIENT, verdict: 'pass', flags: ['sender_elsewhere', 'reply_to_elsewhere'], privileges: { founder: false, team: false, tenant: true }, admission: 'awaiting',
  },
  {
    name: 'display-name spoofing: the founder\'s address as the name, the attacker\'s as the address',
    mail: async () => signers['evil.example']!(await compose({ from: `"${FOUNDER}" <mallory@evil.example>` })),
    verdict: 'pass', flags: ['display_name_spoof'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'a lookalike domain (a digit for a letter), validly signed by its owner',
    mail: async () => signers['stud1o.example']!(await compose({ from: 'Alex <alex@stud1o.example>' })),
    verdict: 'pass', flags: ['lookalike_domain'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'an IDN domain with a Cyrillic letter, validly signed by its owner',
    mail: async () => signers[IDN]!(await compose({ from: 'Alex <alex@studіo.example>' })),
    verdict: 'pass', flags: ['lookalike_domain'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'an authenticated stranger (neither team nor tenant)',
    mail: async () => signers['stranger.example']!(await compose({ from: 'Bob <bob@stranger.example>' })),
    verdict: 'pass', flags: [], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'trusted Authentication-Results: the receiving server saw DKIM and DMARC pass (the signature did not survive)',
    mail: async () => received(await compose({ from: 'Claire <claire@client.example>' }), { results: `${MX}; dkim=pass header.d=client.example header.s=test; dmarc=pass (p=quarantine) header.from=client.example` }),
    tenant: CLIENT, verdict: 'pass', flags: [], privileges: { founder: false, team: false, tenant: true }, admission: 'auto',
  },
  {
    name: 'trusted Authentication-Results saying DMARC fail prevail over nothing else',
    mail: async () => received(await compose({ from: `Alex <${FOUNDER}>` }), { results: `${MX}; spf=fail smtp.mailfrom=mallory@evil.example; dmarc=fail header.from=studio.example` }),
    verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'untrusted Authentication-Results: written by the sender below the receiving server\'s headers',
    mail: async () => received(Buffer.concat([Buffer.from(`Authentication-Results: ${MX}; dkim=pass header.d=studio.example; dmarc=pass header.from=studio.example\r\n`), await compose({ from: `Alex <${FOUNDER}>` })])),
    verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'untrusted Authentication-Results: an authserv-id that is not ours, on top',
    mail: async () => received(await compose({ from: 'Claire <claire@client.example>' }), { results: 'mx.attacker.example; dkim=pass header.d=client.example; dmarc=pass header.from=client.example' }),
    tenant: CLIENT, verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'a DKIM signature over only the start of the body (l=), text appended after it: held as unverified',
    mail: async () => {
      const signed = await signers['studio.example']!(await compose({ from: `Alex <${FOUNDER}>`, text: 'Bonjour, merci.' }), { maxBodyLength: 10 })
      return Buffer.concat([signed, Buffer.from('Et vire 10 000 EUR sur le compte FR76 0000 0000 0000, urgent.\r\n')])
    },
    verdict: 'none', flags: ['dkim_partial_body'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'a forged trusted hop: the sender writes a Received "by" our server, with an IP the client\'s SPF allows',
    mail: async () => received(
      written(`Received: from mail.client.example (mail.client.example [192.0.2.10]) by ${MX} with ESMTPS id 1Ab; Mon, 2 Nov 2026 08:59:58 +0000`, await compose({ from: 'Claire <claire@client.example>' })),
      { returnPath: 'bounce@client.example', ip: '203.0.113.66', helo: 'spoofer.example' },
    ),
    tenant: CLIENT, verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
  {
    name: 'an internal relay (listed by IP) between the edge and the trusted server: SPF is read at the edge below it',
    mail: async () => received(
      written(`Received: from mail.client.example (mail.client.example [192.0.2.10]) by relay.studio.example with ESMTPS id 1Ab; Mon, 2 Nov 2026 08:59:58 +0000`, await compose({ from: 'Claire <claire@client.example>' })),
      { returnPath: 'bounce@client.example', ip: RELAY, helo: 'relay.studio.example' },
    ),
    tenant: CLIENT, verdict: 'pass', flags: [], privileges: { founder: false, team: false, tenant: true }, admission: 'auto',
  },
  {
    name: 'the founder through a forwarder whose ARC seal is trusted: the chain vouches for what its receiver saw',
    mail: async () => forwarded('forwarder.example'),
    verdict: 'pass', flags: [], privileges: { founder: true, team: true, tenant: false }, admission: 'auto',
  },
  {
    name: 'the same forward sealed by a forwarder nobody listed: the chain is shown, the broken signature fails DMARC',
    mail: async () => forwarded('lists.attacker.example'),
    verdict: 'fail', flags: ['dmarc_fail'], privileges: NONE, admission: 'awaiting',
  },
]

describe('sender authentication, privileges and admission, case by case', () => {
  it.each(rows)('$name', async (row) => {
    const raw = await row.mail()
    const parsed = await parseMessage(raw, { limits: config.limits, dir })
    const auth = flagLookalike(await authenticateSender(raw, {
      ...config.senderAuth, resolver: zone.resolver, timeoutMs: 5000, from: { address: parsed.fromAddress, name: parsed.fromName },
    }), parsed.fromAddress, KNOWN)
    expect(auth.verdict, auth.reasons.join('\n')).toBe(row.verdict)
    expect([...auth.flags].sort(), auth.reasons.join('\n')).toEqual([...row.flags].sort())
    expect(auth.reasons.length).toBeGreaterThan(0)
    const standing = senderStanding(auth, parsed.fromAddress, config.classifier, row.tenant ?? null)
    expect({ founder: standing.founder, team: standing.team, tenant: standing.tenant !== null }).toEqual(row.privileges)
    const admission = decideAdmission('chantier', standing)
    expect(admission.admission, admission.reason).toBe(row.admission)
  })

  it('never uses DNS the test did not publish, and a resolver that hangs ends as `none` with the reason', async () => {
    const raw = await signers['client.example']!(await compose({ from: 'Claire <claire@client.example>' }))
    const hung = await authenticateSender(raw, { resolver: () => new Promise(() => {}), trustedAuthservIds: [], timeoutMs: 200, from: { address: 'claire@client.example', name: null } })
    expect(hung).toMatchObject({ verdict: 'none', flags: [] })
    expect(hung.reasons[0]).toMatch(/took over 200 ms \(ATLAS_AUTH_TIMEOUT_MS\)/)
  })
})

describe('mail that did not come through the trusted server (IMAP APPEND, the drop folder)', () => {
  const strict = readAtlasConfig(ENV)
  const judge = async (raw: Buffer) => {
    const parsed = await parseMessage(raw, { limits: strict.limits, dir })
    const auth = await authenticateSender(raw, {
      ...strict.senderAuth,
      resolver: zone.resolver,
      timeoutMs: 5000,
      from: { address: parsed.fromAddress, name: parsed.fromName },
    })
    return { auth, standing: senderStanding(auth, parsed.fromAddress, strict.classifier, null) }
  }

  it('holds the founder\'s validly signed mail as unverified when no trusted server stamped it, saying why', async () => {
    const appended = await signers['studio.example']!(await compose({ from: `Alex <${FOUNDER}>` }))
    const { auth, standing } = await judge(appended)
    expect(auth.verdict).toBe('none')
    expect(auth.flags).toEqual(['unstamped'])
    expect(auth.reasons.join('\n')).toMatch(/held as unverified: no Received header.*IMAP APPEND/)
    expect(standing.founder).toBe(false)
    expect(decideAdmission('chantier', standing).admission).toBe('awaiting')
    // A Received the appender wrote, by another host, changes nothing.
    expect((await judge(received(appended, { by: 'mx.attacker.example' }))).auth.flags).toEqual(['unstamped'])
  })

  it('keeps the same mail\'s privilege when the trusted server stamped it on top', async () => {
    const delivered = received(await signers['studio.example']!(await compose({ from: `Alex <${FOUNDER}>` })), { helo: 'mail.studio.example' })
    const { auth, standing } = await judge(delivered)
    expect(auth.verdict, auth.reasons.join('\n')).toBe('pass')
    expect(standing.founder).toBe(true)
    expect(decideAdmission('chantier', standing).admission).toBe('auto')
  })
})
