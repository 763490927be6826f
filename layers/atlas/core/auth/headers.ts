// Reading the trace headers a receiving server puts on top of a message. Anything below them
// was written by whoever sent the mail, so only the top block can be believed, and only when
// a server we trust stamped it: the topmost Received header must be `by` one of
// ATLAS_TRUSTED_AUTHSERV_IDS. The trusted block then runs down through the Received headers
// stamped by trusted servers; the deepest of them is the edge, whose `from` clause names the
// client that connected (its IP and HELO, SPF's inputs). Authentication-Results inside the
// block whose authserv-id is trusted are the receiving server's own verdicts.

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
  /** Why nothing was trusted, when nothing was. */
  note?: string
}

export function trustedTrace(fields: HeaderField[], trustedIds: string[]): TrustedTrace {
  const trusted = new Set(trustedIds.map(id => id.toLowerCase()))
  if (trusted.size === 0) return { results: [], spf: null, note: 'no trusted receiving server configured (ATLAS_TRUSTED_AUTHSERV_IDS)' }
  const firstReceived = fields.findIndex(f => f.key === 'received')
  if (firstReceived < 0) return { results: [], spf: null, note: 'no Received header: nothing was added by a receiving server' }
  const top = parseReceived(fields[firstReceived]!.value)
  if (!top.by || !trusted.has(top.by)) return { results: [], spf: null, note: `the topmost Received header was not stamped by a trusted server (by ${top.by ?? 'nobody'})` }
  // The block runs down while the Received headers are stamped by trusted servers.
  let edge = firstReceived
  for (let i = firstReceived + 1; i < fields.length; i++) {
    if (fields[i]!.key !== 'received') continue
    const hop = parseReceived(fields[i]!.value)
    if (!hop.by || !trusted.has(hop.by)) break
    edge = i
  }
  const block = fields.slice(0, edge + 1)
  const results = block.filter(f => f.key === 'authentication-results').map(f => parseAuthenticationResults(f.value)).filter(r => trusted.has(r.authservId))
  const client = parseReceived(fields[edge]!.value)
  const returnPath = block.find(f => f.key === 'return-path')?.value.replace(/[<>\s]/g, '') ?? null
  const spf = client.fromIp && client.fromHelo && returnPath !== null ? { ip: client.fromIp, helo: client.fromHelo, sender: returnPath } : null
  return { results, spf, note: spf ? undefined : 'the trusted Received header or Return-Path lacks the client IP, HELO or envelope sender: SPF not evaluated' }
}
