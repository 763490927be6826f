// The facade's errors. None of them carries a cause, headers or request options (where a
// key could hide); their messages are redacted before they are thrown.
import type { ProviderId } from './catalog'

export interface ProviderErrorInit {
  provider: ProviderId
  /**
   * Machine-readable reason: http_500, timeout, network, rate_limited, overloaded, billing_error, insufficient_quota, spend_limit,
   * invalid_json, …
   */
  code: string
  status?: number
  retryable: boolean
  retryAfterMs?: number
  detail?: string
  /** Request-specific failures (bad input) do not count towards the provider's cooldown. */
  requestSpecific?: boolean
  /** What the failed attempt consumed anyway (an answer that was not valid JSON was still billed). */
  usage?: { model: string, tokensIn: number, tokensOut: number }
}

/** One failed attempt at one provider. */
export class ProviderError extends Error {
  readonly provider: ProviderId
  readonly code: string
  readonly status?: number
  readonly retryable: boolean
  readonly retryAfterMs?: number
  readonly requestSpecific: boolean
  readonly usage?: { model: string, tokensIn: number, tokensOut: number }

  constructor(init: ProviderErrorInit) {
    const status = init.status ? ` (HTTP ${init.status})` : ''
    const detail = init.detail ? `: ${init.detail.slice(0, 300)}` : ''
    super(`${init.provider}: ${init.code}${status}${detail}`)
    this.name = 'ProviderError'
    this.provider = init.provider
    this.code = init.code
    this.status = init.status
    this.retryable = init.retryable
    this.retryAfterMs = init.retryAfterMs
    this.requestSpecific = init.requestSpecific ?? false
    this.usage = init.usage
  }
}

export interface FailedProvider {
  provider: ProviderId
  code: string
  status?: number
  message: string
}

/** No provider answered (the seed's "All AI providers are unavailable"). */
export class AiUnavailableError extends Error {
  readonly code = 'ai_unavailable'
  constructor(message: string, readonly failures: FailedProvider[]) {
    super(message)
    this.name = 'AiUnavailableError'
  }
}

/** The caller asked for something the facade cannot do (bad input): never retried. */
export class AiRequestError extends Error {
  readonly code = 'ai_bad_request'
  constructor(message: string) {
    super(message)
    this.name = 'AiRequestError'
  }
}

/** The caller's AbortSignal fired: the call stops, no failover. */
export class AiAbortedError extends Error {
  readonly code = 'ai_aborted'
  constructor(message = 'The AI call was aborted by its caller.') {
    super(message)
    this.name = 'AiAbortedError'
  }
}
