// Keys never leave the process: every text the facade emits (log line, error message,
// ledger field, API answer) goes through a redactor built from the environment's secrets.

export type Redactor = (text: string) => string

const KEY_SHAPES: RegExp[] = [
  /\bsk-ant-[\w-]{8,}/g, // Anthropic
  /\bsk-(?:proj-|svcacct-)?[\w-]{16,}/g, // OpenAI
  /\bpa-[\w-]{20,}/g, // Voyage
  /\b(Bearer)\s+[\w.~+/-]{12,}=*/gi, // any bearer token
]

export function createRedactor(secrets: readonly string[]): Redactor {
  const ordered = [...new Set(secrets.filter(s => s.length >= 4))].sort((a, b) => b.length - a.length)
  return (text: string) => {
    let out = text
    for (const secret of ordered) {
      if (out.includes(secret)) out = out.split(secret).join('[redacted]')
    }
    for (const shape of KEY_SHAPES) {
      out = out.replace(shape, (_match, bearer?: string) => (typeof bearer === 'string' && /^bearer$/i.test(bearer) ? `${bearer} [redacted]` : '[redacted]'))
    }
    return out
  }
}

/** Applies the redactor to every string inside a plain value (objects, arrays). */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) return value.map(item => redactDeep(item, redact)) as T
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item, redact)
    return out as T
  }
  return value
}

/** A URL safe to show: no credentials, no query string. */
export function displayUrl(url: string | undefined): string | null {
  if (!url) return null
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`
  }
  catch {
    return '(invalid URL)'
  }
}
