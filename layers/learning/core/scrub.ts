// The personal-data scrubber of the suggestion engine (§4.2): run on a lesson before any
// model sees it, and again on the model's answer before it is stored (defence in depth: a
// model may echo what it was given). Each kind of datum becomes a fixed marker, so that a
// scrubbed text still reads ("write to [EMAIL]"). Near-misses are kept on purpose: a version
// number is not an IP address, an order number is not a phone number, a long hash in a
// commit reference is not a token unless it looks like one.

export const SCRUB_MARKERS = {
  email: '[EMAIL]',
  phone: '[PHONE]',
  iban: '[IBAN]',
  card: '[CARD]',
  ip: '[IP]',
  token: '[TOKEN]',
  name: '[PERSON]',
} as const
export type ScrubKind = keyof typeof SCRUB_MARKERS

export interface ScrubResult {
  text: string
  /** How many of each kind were replaced. */
  found: Partial<Record<ScrubKind, number>>
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu
// API tokens: well-known prefixes, then a bearer header's value, then key=value assignments.
const TOKEN_PREFIXED = /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})/g
const TOKEN_BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi
const TOKEN_ASSIGNED = /\b((?:[a-z0-9]+_)*(?:api[_-]?key|secret|token|password|passwd|access[_-]?key)\s*[:=]\s*["']?)[^\s"']{8,}/gi
// IBAN: two letters, two check digits, then 11 to 30 alphanumerics, grouped by 4 or not.
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b/g
// Card numbers, as cards print them: 15 to 19 digits in one run, four groups of four (plus a
// short fifth), or Amex's 4-6-5; kept unless Luhn-valid. A SIRET (3-3-3-5, or 14 digits) is
// Luhn-valid by design, hence the shapes rather than any digit run.
const CARD = /\b(?:\d{15,19}|\d{4}(?:[ -]\d{4}){3}(?:[ -]\d{1,3})?|\d{4}[ -]\d{6}[ -]\d{5})\b/g
// IPv4 (each octet ≤ 255), not preceded by "v" or a dot/digit (a version: v1.2.3.4, 10.0.1.2.3),
// not followed by ".digit" (a longer dotted number); IPv6 with at least two colons-groups.
const IPV4 = /(?<![\w.])(?<!version\s)(?<!v)(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w.]\d|\.\d)(?:\/\d{1,2})?/gi
const IPV6 = /(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])/gi
// French numbers: 0X then four pairs (spaces, dots or dashes between), or +33 / 0033 then 9 digits.
const PHONE_FR = /(?<![\w+#-])(?:(?:\+|00)33[\s.-]?(?:\(0\)[\s.-]?)?[1-9]|0[1-9])(?:[\s.-]?\d{2}){4}(?![\w-])/g
// International: a "+" and a country code, then 6 to 14 more digits in groups.
const PHONE_INTL = /(?<![\w+])\+[1-9]\d{0,2}(?:[\s.-]?(?:\(\d{1,4}\)|\d{1,4})){2,6}(?![\w-])/g

function luhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** IBAN check digits (mod 97), so that a random reference of the same shape is kept. */
function ibanValid(candidate: string): boolean {
  const compact = candidate.replace(/ /g, '')
  if (compact.length < 15 || compact.length > 34) return false
  const moved = compact.slice(4) + compact.slice(0, 4)
  let rest = 0
  for (const ch of moved) {
    const value = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55)
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97
  }
  return rest === 1
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The people's names to remove (from the tenants' contacts): each full name, and each of its
 * words of 3 letters or more that starts with a capital (a surname alone is still a person).
 */
export function nameMatcher(names: readonly string[]): RegExp | null {
  const words = new Set<string>()
  for (const name of names) {
    const full = name.trim().replace(/\s+/g, ' ')
    if (!full) continue
    words.add(full)
    for (const part of full.split(/[\s-]+/)) {
      if ([...part].length >= 3 && /^\p{Lu}/u.test(part)) words.add(part)
    }
  }
  if (words.size === 0) return null
  const alternatives = [...words].sort((a, b) => b.length - a.length).map(escapeRegExp)
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'gu')
}

export interface Scrubber {
  (text: string): ScrubResult
}

export function createScrubber(options: { names?: readonly string[] } = {}): Scrubber {
  const names = nameMatcher(options.names ?? [])
  return (input: string) => {
    const found: Partial<Record<ScrubKind, number>> = {}
    const count = (kind: ScrubKind) => {
      found[kind] = (found[kind] ?? 0) + 1
      return SCRUB_MARKERS[kind]
    }
    let text = input
    // Order matters: tokens and e-mails first (they contain digits and dots), then bank
    // numbers (they contain digit runs a phone pattern would take), then addresses and phones.
    text = text.replace(TOKEN_PREFIXED, () => count('token'))
    text = text.replace(TOKEN_BEARER, (_m, prefix: string) => `${prefix}${count('token')}`)
    text = text.replace(TOKEN_ASSIGNED, (_m, prefix: string) => `${prefix}${count('token')}`)
    text = text.replace(EMAIL, () => count('email'))
    text = text.replace(IBAN, match => (ibanValid(match) ? count('iban') : match))
    text = text.replace(CARD, (match) => {
      const digits = match.replace(/\D/g, '')
      return digits.length >= 13 && luhn(digits) ? count('card') : match
    })
    text = text.replace(IPV4, () => count('ip'))
    // A time (12:30:45) has no hex letter and no "::"; an address has one or the other and 3+ colons.
    text = text.replace(IPV6, match => ((match.match(/:/g)?.length ?? 0) >= 3 && (/[a-f]/i.test(match) || match.includes('::')) ? count('ip') : match))
    text = text.replace(PHONE_FR, () => count('phone'))
    text = text.replace(PHONE_INTL, (match) => {
      const digits = match.replace(/\D/g, '')
      return digits.length >= 8 && digits.length <= 15 ? count('phone') : match
    })
    if (names) text = text.replace(names, () => count('name'))
    return { text, found }
  }
}

/** The total of replacements in a result. */
export function scrubbedCount(result: ScrubResult): number {
  return Object.values(result.found).reduce((sum, n) => sum + (n ?? 0), 0)
}
