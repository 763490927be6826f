// Strips query parameters from an error and its causes, in place (see server/plugins/error-redaction.ts).
const FAILED_QUERY = /^(Failed query: [\s\S]*?)\nparams: [\s\S]*$/

export function redactQueryError(error: unknown, depth = 0): void {
  if (!error || typeof error !== 'object' || depth > 5) return
  const record = error as Record<string, unknown> & { message?: unknown, stack?: unknown }
  if (typeof record.message === 'string' && FAILED_QUERY.test(record.message)) {
    const redacted = record.message.replace(FAILED_QUERY, '$1\nparams: (not logged)')
    if (typeof record.stack === 'string') record.stack = record.stack.replace(record.message, redacted)
    record.message = redacted
  }
  for (const key of ['params', 'parameters', 'args']) {
    // A non-configurable one stays: postgres.js defines those non-enumerable, which the log never prints.
    if (key in record) Reflect.deleteProperty(record, key)
  }
  redactQueryError(record.cause, depth + 1)
}
