// An automate's failure in words a person can act on (issue 36, deliverable 3), recorded as
// its run's reason (ops_cron_runs.reason), shown on its page and in the alert: the address
// where nothing answers, the file or program missing, the budget reached; a run that exited
// non-zero without throwing says its code and its last words instead of nothing.
const clip = (text: string, max = 300) => text.length > max ? `${text.slice(0, max - 1)}…` : text

interface SystemError {
  code?: unknown
  address?: unknown
  port?: unknown
  path?: unknown
  hostname?: unknown
  errors?: unknown
  message?: unknown
}

/** Node's system errors (a failed connect or spawn) in words; null when the error is not one. */
function systemFailure(error: SystemError): string | null {
  // A connect tried on several addresses (IPv4 and IPv6) fails with all of them.
  if (Array.isArray(error.errors) && error.errors.length > 0) {
    const first = error.errors.map(inner => systemFailure(inner as SystemError)).find(Boolean)
    if (first) return first
  }
  const where = typeof error.address === 'string' ? `${error.address}${typeof error.port === 'number' ? `:${error.port}` : ''}` : null
  switch (error.code) {
    case 'ECONNREFUSED': return `nothing answers on ${where ?? 'the address'}: start the service or correct the address`
    case 'ENOTFOUND': return `the host ${typeof error.hostname === 'string' ? error.hostname : '(unnamed)'} does not resolve: check the address`
    case 'ETIMEDOUT': return `no answer from ${where ?? 'the address'} before the timeout`
    case 'ENOENT': return typeof error.path === 'string' ? `${error.path} was not found (ENOENT): install it or correct the path` : null
    case 'EACCES': return typeof error.path === 'string' ? `permission denied on ${error.path} (EACCES)` : null
    case 'budget_exceeded': return typeof error.message === 'string' ? error.message : 'a monthly budget is reached: a founder can raise it on /hub/usage'
    default: return null
  }
}

/** Why a run that threw failed. */
export function automateFailureReason(error: unknown): string {
  if (error && typeof error === 'object') {
    const known = systemFailure(error as SystemError)
    if (known) return known
  }
  const message = error instanceof Error ? error.message : String(error)
  if (/budget_exceeded/.test(message) && !/monthly budget/.test(message)) return `a monthly budget is reached (${clip(message, 200)}): a founder can raise it on /hub/usage`
  return clip(message || 'the run failed without a message', 1000)
}

/** Why a run that returned a failing exit code failed: its code, what it said was missing, its last line. */
export function exitFailureReason(exitCode: number, outputTail: string, missing?: string): string {
  const last = outputTail.split('\n').map(line => line.trim()).filter(Boolean).at(-1)
  return [`exited with code ${exitCode}`, missing, last ? `last line: ${clip(last)}` : 'it printed nothing'].filter(Boolean).join('; ')
}
