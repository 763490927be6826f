// An agent run's failure in words (engine/failure-words.ts): which provider failed and what to
// do about it, the budget's own words kept, any other error as it was.
import { describe, expect, it } from 'vitest'
import { AiUnavailableError, ProviderError } from '#layers/ai/core/errors'
import { providerFailureWords, runFailureReason } from '#layers/agents/core/engine/failure-words'

describe('an agent run\'s failure in words', () => {
  it('names each provider that failed and what to do', () => {
    const error = new AiUnavailableError('All AI providers are unavailable (anthropic: network: ECONNREFUSED; mistral: http_401)', [
      { provider: 'anthropic', code: 'network', message: 'anthropic: network: ECONNREFUSED' },
      { provider: 'mistral', code: 'http_401', status: 401, message: 'mistral: http_401 (HTTP 401)' },
      { provider: 'openai', code: 'insufficient_quota', status: 429, message: 'openai: insufficient_quota (HTTP 429)' },
    ])
    expect(runFailureReason(error)).toBe('No model answered: anthropic: nothing answers at its address (ECONNREFUSED): start it or correct its base URL on /hub/ai; '
      + 'mistral: the key was refused (HTTP 401): set a valid key for it on /hub/ai; '
      + 'openai: its account has no credit or quota left (insufficient_quota): add credit or choose another provider')
  })
  it('a single provider\'s error, a rate limit, a timeout', () => {
    expect(runFailureReason(new ProviderError({ provider: 'anthropic', code: 'rate_limited', status: 429, retryable: true }))).toBe('anthropic: rate limited (429): the run can be retried later')
    expect(providerFailureWords({ provider: 'mistral', code: 'timeout', message: 'mistral: timeout' })).toBe('mistral: no complete answer in time: retry, or raise its timeout')
    expect(providerFailureWords({ provider: 'mistral', code: 'http_500', status: 500, message: 'mistral: http_500 (HTTP 500)' })).toBe('mistral: http_500 (HTTP 500)')
  })
  it('keeps the budget\'s and any other error\'s own words', () => {
    const budget = Object.assign(new Error('the monthly budget of agent scribe is reached: $10.00 of $10.00; a founder can raise it on /hub/usage'), { code: 'budget_exceeded' })
    expect(runFailureReason(budget)).toBe(budget.message)
    expect(runFailureReason(new AiUnavailableError('All AI providers are unavailable (no provider is configured)', []))).toBe('All AI providers are unavailable (no provider is configured)')
  })
})
