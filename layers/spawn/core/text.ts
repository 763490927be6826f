// Mail text is hostile input: it may carry NUL bytes (PostgreSQL text refuses them), lone
// surrogates, megabytes of one line. Everything stored or sent to a model goes through here.

/** Removes NUL and the C0 controls other than tab, line feed and carriage return. */
export function cleanText(value: string): string {
  return value
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
}

/** Cleans and cuts to `max` characters (on a code point boundary). */
export function clip(value: string, max: number): string {
  const cleaned = cleanText(value)
  if (cleaned.length <= max) return cleaned
  let end = max
  const code = cleaned.charCodeAt(end - 1)
  if (code >= 0xD800 && code <= 0xDBFF) end -= 1
  return cleaned.slice(0, end)
}

/** A JSON-safe copy of audit details (strings cleaned, depth bounded). */
export function cleanDetails(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clip(value, 4000)
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? Number(value) : value
  if (depth > 6) return '[too deep]'
  if (Array.isArray(value)) return value.slice(0, 200).map(item => cleanDetails(item, depth + 1))
  if (value instanceof Date) return value.toISOString()
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) out[cleanText(key)] = cleanDetails(item, depth + 1)
  }
  return out
}

/** The address part of an email address, lower-cased ('' when there is none). */
export function normaliseAddress(address: string | null | undefined): string {
  return (address ?? '').trim().toLowerCase()
}

export function domainOf(address: string | null | undefined): string {
  const normalised = normaliseAddress(address)
  const at = normalised.lastIndexOf('@')
  return at >= 0 ? normalised.slice(at + 1) : ''
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
