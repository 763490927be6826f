// The publishing gates (step 6): a proposal replaces its chapter only when it leaks nothing
// (no secret by pattern, no IP address or internal host name), cites no dead reference (the
// drift detector run on the proposal) and passes the style check (a title heading, lines of
// at most 120 characters outside code blocks and tables, no TODO/FIXME/XXX).
import type { CodeTree } from './references'
import { inspectChapter } from './drift'

export const MAX_LINE = 120

const SECRETS: Array<[string, RegExp]> = [
  ['private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['API key', /\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9]{16,}\b/],
  ['AWS access key', /\bAKIA[0-9A-Z]{16}\b/],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{30,}\b/],
  ['Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/],
  ['password or token assignment', /\b(?:password|passwd|secret|token|api[_-]?key)\s*[:=]\s*["']?[^\s"'`]{8,}/i],
  ['URL with credentials', /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i],
]
const IPV4 = /\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b/
// Full and compressed IPv6 forms (the snapshot sanitiser's, without its global flag).
const IPV6 = /(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])|(?<![\w:])(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?![\w:])|(?<![\w:])::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4}(?![\w:])/i
const INTERNAL_HOST = /\b(?:localhost|[\w-]+(?:\.[\w-]+)*\.(?:internal|local|lan|corp|intranet|home\.arpa))\b/i

export interface GateVerdict { passed: boolean, reasons: string[] }

export function leakReasons(text: string): string[] {
  const reasons = SECRETS.filter(([, pattern]) => pattern.test(text)).map(([name]) => `secret: ${name}`)
  if (IPV4.test(text) || IPV6.test(text)) reasons.push('internal address: an IP address')
  const host = INTERNAL_HOST.exec(text)
  if (host) reasons.push(`internal address: host name ${host[0]}`)
  return reasons
}

export function styleReasons(text: string): string[] {
  const reasons: string[] = []
  const lines = text.split('\n')
  if (!/^# \S/.test(lines.find(line => line.trim() !== '') ?? '')) reasons.push('style: the chapter does not open with a "# " title')
  let fenced = false
  lines.forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    else if (!fenced && !line.startsWith('|') && line.length > MAX_LINE) reasons.push(`style: line ${index + 1} is longer than ${MAX_LINE} characters`)
  })
  if (/\b(?:TODO|FIXME|XXX)\b/.test(text)) reasons.push('style: a TODO/FIXME/XXX marker')
  return reasons
}

export function checkProposal(chapter: string, text: string, tree: CodeTree): GateVerdict {
  const drift = inspectChapter(chapter, { text, mtimeMs: Number.POSITIVE_INFINITY }, tree)
  const reasons = [
    ...leakReasons(text),
    ...drift.dead.map(ref => `drift: dead reference ${ref}`),
    ...styleReasons(text),
  ]
  return { passed: reasons.length === 0, reasons }
}
