// Text that PostgreSQL cannot store or that no person typed: a NUL character, or half of
// a UTF-16 surrogate pair. Every string reaching a route is checked for both, so bad bytes
// answer 400 naming the field instead of a 500 from the database.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why value is refused, or null when it is fine. */
export function badText(value: string): string | null {
  if (value.includes('\0')) return 'contains a NUL character'
  if (LONE_SURROGATE.test(value)) return 'contains a lone surrogate (not valid Unicode)'
  return null
}

/** The first bad string inside a JSON value, with its path (body.items[2].name). */
export function findBadText(value: unknown, path: string): { field: string, problem: string } | null {
  if (typeof value === 'string') {
    const problem = badText(value)
    return problem ? { field: path, problem } : null
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadText(value[i], `${path}[${i}]`)
      if (found) return found
    }
    return null
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = badText(key)
      if (keyProblem) return { field: `${path}.${key}`, problem: keyProblem }
      const found = findBadText(item, `${path}.${key}`)
      if (found) return found
    }
  }
  return null
}

/** Each path segment decoded, or the segment that does not decode to valid text. */
export function badPathSegment(pathname: string): { field: string, problem: string } | null {
  const segments = pathname.split('/')
  for (let i = 0; i < segments.length; i++) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segments[i]!)
    }
    catch {
      return { field: `path segment ${i} (${segments[i]})`, problem: 'is not valid UTF-8 once decoded' }
    }
    const problem = badText(decoded)
    if (problem) return { field: `path segment ${i} (${segments[i]})`, problem }
  }
  return null
}

/** The query string's parameters, checked by name (raw, so bad escapes are caught too). */
export function badQueryParameter(search: string): { field: string, problem: string } | null {
  if (!search) return null
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (!pair) continue
    const [rawName = '', rawValue = ''] = pair.split(/=(.*)/s)
    let name: string
    let value: string
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '))
      value = decodeURIComponent(rawValue.replaceAll('+', ' '))
    }
    catch {
      return { field: `query.${rawName}`, problem: 'is not valid UTF-8 once decoded' }
    }
    const problem = badText(name) ?? badText(value)
    if (problem) return { field: `query.${name.replace(/[\0\uD800-\uDFFF]/g, '?')}`, problem }
  }
  return null
}
