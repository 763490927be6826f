// Reading the trace headers a receiving server puts on top of a message. Anything below them
// was written by whoever sent the mail, so only the top block can be believed, and only when
// a server we trust stamped it: the topmost Received header must be `by` one of
// ATLAS_TRUSTED_AUTHSERV_IDS. That header's `from` clause is what the trusted server saw on the
// wire. The block goes one Received further down only while the client just read is one of our
// own relays (ATLAS_INTERNAL_RELAYS, by IP: a `by` name is the writer's text, and a sender can
// write "by mx.studio.example" as easily as anything). The deepest hop read is the edge: its
// `from` clause names the client that connected from outside (its IP and HELO, SPF's inputs).
// Authentication-Results inside the block whose authserv-id is trusted are the receiving
// server's own verdicts.
import { BlockList, isIP } from 'node:net'

export interface HeaderField { key: string, value: string }

/** The header block of a raw message, unfolded, top to bottom. */
export function readHeaderFields(raw: Buffer): HeaderField[] {
  const crlf = raw.indexOf('\r\n\r\n')
  const lf = raw.indexOf('\n\n')
  const ends = [crlf, lf].filter(i => i >= 0)
  const block = raw.subarray(0, ends.length > 0 ? Math.min(...ends) : raw.length).subarray(0, 512 * 1024).toString('latin1')
  const fields: HeaderField[] = []
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length > 0) {
      fields[fields.length - 1]!.value += ` ${line.trim()}`
      continue
    }
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    fields.push({ key: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() })
  }
  return fields
}

export interface ReceivedClause { fromHelo: string | null, fromIp: string | null, by: string | null }

export function parseReceived(value: string): ReceivedClause {
  const withoutDate = value.replace(/;[^;]*$/, '')
  const from = /(?:^|\s)from\s+(\S+)(?:\s+\(([^)]*)\))?/i.exec(withoutDate)
  const by = /(?:^|\s)by\s+([^\s;()]+)/i.exec(withoutDate)
  const ip = from?.[2] ? /\[(?:IPv6:)?([0-9a-f:.]+)\]/i.exec(from[2])?.[1] ?? null : null
  return { fromHelo: from?.[1]?.replace(/^\[|\]$/g, '') ?? null, fromIp: ip, by: by?.[1]?.toLowerCase() ?? null }
}

export interface AuthResultEntry { method: string, result: string, props: Record<string, string> }
export interface AuthResults { authservId: string, entries: AuthResultEntry[] }

/** `authserv-id [version]; method=result ptype.prop=value …; …` (RFC 8601), comments dropped. */
export function parseAuthenticationResults(value: string): AuthResults {
  let text = value
  for (let i = 0; i < 5 && /\([^()]*\)/.test(text); i++) text = text.replace(/\([^()]*\)/g, ' ')
  const [head = '', ...rest] = text.split(';')
  const entries: AuthResultEntry[] = []
  for (const part of rest) {
    const tokens = part.trim().split(/\s+/).filter(Boolean)
    const first = /^([a-z0-9-]+)(?:\/\d+)?=([a-z]+)$/i.exec(tokens[0] ?? '')
    if (!first) continue
    const props: Record<string, string> = {}
    for (const token of tokens.slice(1)) {
      const prop = /^([a-z0-9-]+\.[a-z0-9-]+)=(.+)$/i.exec(token)
      if (prop) props[prop[1]!.toLowerCase()] = prop[2]!.replace(/^"|"$/g, '').toLowerCase()
    }
    entries.push({ method: first[1]!.toLowerCase(), result: first[2]!.toLowerCase(), props })
  }
  return { authservId: head.trim().split(/\s+/)[0]?.toLowerCase() ?? '', entries }
}

export interface TrustedTrace {
  /** The Authentication-Results the trusted receiving server added. */
  results: AuthResults[]
  /** SPF's inputs, from the edge Received and the Return-Path above it (all or nothing). */
  spf: { ip: string, helo: string, sender: string } | null
  /** Whether the topmost Received was stamped by a trusted server: the mail came through it. */
  stamped: boolean
  /** Why nothing was trusted, when nothing was. */
  note?: string
}

/** The internal relays' addresses or networks (`192.0.2.25`, `10.0.0.0/8`, `2001:db8::/32`). */
export function relayList(entries: string[]): BlockList {
  const list = new BlockList()
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/')
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) list.addAddress(address, family)
    else list.addSubnet(address, Number(bits), family)
  }
  return list
}

export function trustedTrace(fields: HeaderField[], trustedIds: string[], internalRelays: string[] = []): TrustedTrace {
  const trusted = new Set(trustedIds.map(id => id.toLowerCase()))
  if (trusted.size === 0) return { results: [], spf: null, stamped: false, note: 'no trusted receiving server configured (ATLAS_TRUSTED_AUTHSERV_IDS)' }
  const firstReceived = fields.findIndex(f => f.key === 'received')
  if (firstReceived < 0) return { results: [], spf: null, stamped: false, note: 'no Received header: nothing was added by a receiving server' }
  const top = parseReceived(fields[firstReceived]!.value)
  if (!top.by || !trusted.has(top.by)) return { results: [], spf: null, stamped: false, note: `the topmost Received header was not stamped by a trusted server (by ${top.by ?? 'nobody'})` }
  // Down one hop only while the client the trusted block saw is one of our relays: that
  // relay wrote the next Received. Whatever the `by` names below say, nobody else is believed.
  const relays = relayList(internalRelays)
  const isRelay = (ip: string | null) => ip !== null && isIP(ip) !== 0 && relays.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4')
  let edge = firstReceived
  while (isRelay(parseReceived(fields[edge]!.value).fromIp)) {
    const next = fields.findIndex((f, i) => i > edge && f.key === 'received')
    if (next < 0) break
    edge = next
  }
  const block = fields.slice(0, edge + 1)
  const results = block.filter(f => f.key === 'authentication-results').map(f => parseAuthenticationResults(f.value)).filter(r => trusted.has(r.authservId))
  const client = parseReceived(fields[edge]!.value)
  const returnPath = block.find(f => f.key === 'return-path')?.value.replace(/[<>\s]/g, '') ?? null
  const spf
    = client.fromIp && client.fromHelo && returnPath !== null ? { ip: client.fromIp, helo: client.fromHelo, sender: returnPath } : null
  return { results, spf, stamped: true, note: spf ? undefined : 'the trusted Received header or Return-Path lacks the client IP, HELO or envelope sender: SPF not evaluated' }
}
