// The sanitising pass of the public snapshot: IP addresses, internal (absolute) paths, e-mail
// addresses and the tenants' names and slugs are replaced, in every string of the snapshot.
// Relative documentation and code paths (docs/memory.md) stay: they are the public part.

const IPV4 = /\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?::\d{1,5})?\b/g
// Full and compressed IPv6 forms (eight groups, or groups around a double colon).
const IPV6 = /(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])|(?<![\w:])(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?![\w:])|(?<![\w:])::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4}(?![\w:])/gi
// An absolute Unix path (/home/…, /var/…; a sentence's final stop is not part of it) or a
// Windows one (C:\…), up to a space or quote.
const UNIX_PATH = /(?<![\w.:/])\/(?:[\w.@+-]+\/)*(?:[\w.@+-]*[\w@+-])?\/?/g
const WINDOWS_PATH = /\b[A-Z]:\\[^\s"'<>|]*/gi
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g

export interface TenantIdentity { name: string, slug: string }

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function createSanitizer(tenants: TenantIdentity[]): (text: string) => string {
  const words = [...new Set(tenants.flatMap(t => [t.name, t.slug]).map(w => w.trim()).filter(w => w.length >= 2))]
    .sort((a, b) => b.length - a.length)
  const tenantPattern = words.length > 0 ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escape).join('|')})(?![\\p{L}\\p{N}])`, 'giu') : null
  return (text: string) => {
    let out = text.replace(EMAIL, '[email]').replace(IPV6, '[ip]').replace(IPV4, '[ip]').replace(WINDOWS_PATH, '[path]').replace(UNIX_PATH, '[path]')
    if (tenantPattern) out = out.replace(tenantPattern, '[tenant]')
    return out
  }
}

/** Every string of a JSON value sanitised (keys included); numbers, booleans and null kept. */
export function sanitizeDeep<T>(value: T, clean: (text: string) => string): T {
  if (typeof value === 'string') return clean(value) as T
  if (Array.isArray(value)) return value.map(item => sanitizeDeep(item, clean)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [clean(key), sanitizeDeep(item, clean)])) as T
  }
  return value
}
