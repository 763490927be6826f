// An agent run's failure in words a person can act on (issue 36, deliverable 3), stored as the
// run's error and shown on its page and in the notification: which model provider failed and
// why (nothing answers at its address, its key refused, its credit or quota spent, rate
// limits), the monthly budget reached; any other error keeps its own message.
import { AiUnavailableError, ProviderError, type FailedProvider } from '#layers/ai/core/errors'

const MAX = 2000

/** One provider's failed attempt in words. */
export function providerFailureWords(failure: Pick<FailedProvider, 'provider' | 'code' | 'status' | 'message'>): string {
  const { provider, code, status, message } = failure
  if (code === 'network' && /ECONNREFUSED/.test(message)) return `${provider}: nothing answers at its address (ECONNREFUSED): start it or correct its base URL on /hub/ai`
  if (code === 'network' && /ENOTFOUND|EAI_AGAIN/.test(message)) return `${provider}: its host does not resolve: correct its base URL on /hub/ai`
  if (code === 'network') return `${provider}: the connection failed (${message.replace(/^\w+: network: ?/, '') || 'network'}): check the network or its base URL`
  if (code === 'timeout') return `${provider}: no complete answer in time: retry, or raise its timeout`
  if (status === 401 || status === 403 || /authentication|invalid.*key/i.test(code)) return `${provider}: the key was refused (HTTP ${status ?? 401}): set a valid key for it on /hub/ai`
  if (code === 'billing_error' || code === 'insufficient_quota' || code === 'spend_limit') return `${provider}: its account has no credit or quota left (${code}): add credit or choose another provider`
  if (code === 'rate_limited' || status === 429) return `${provider}: rate limited (429): the run can be retried later`
  if (code === 'overloaded' || status === 529) return `${provider}: overloaded: the run can be retried later`
  return message
}

/** Why a run failed: the error as a person can act on it. */
export function runFailureReason(error: unknown): string {
  if (error instanceof AiUnavailableError && error.failures.length > 0) {
    return `No model answered: ${error.failures.map(providerFailureWords).join('; ')}`.slice(0, MAX)
  }
  if (error instanceof ProviderError)
    return providerFailureWords({ provider: error.provider, code: error.code, status: error.status, message: error.message }).slice(0, MAX)
  // BudgetExceededError's message already names whose budget, how much and where to raise it.
  return (error instanceof Error ? error.message : String(error)).slice(0, MAX)
}
