// Which failures are worth another attempt, and how long to wait before it.
//   retry:   transport errors, timeouts, 408, 409, 429 (rate limit), 5xx, Anthropic 529
//   never:   400, 401, 403, 404, 413, 422, Anthropic billing_error, a spend-limit 429,
//            OpenAI insufficient_quota (and any other 4xx)
//   wait:    retry-after-ms, then retry-after (seconds or HTTP date), else exponential
//            backoff with jitter, capped; a server asking for longer than maxRetryAfterMs
//            gets no retry (the call fails over instead).
import type { ProviderId } from './catalog'
import { ProviderError } from './errors'

export interface RetryPolicy {
  attempts: number
  baseDelayMs: number
  maxDelayMs: number
  /** A retry-after beyond this is not waited for. */
  maxRetryAfterMs: number
}

export const COMPLETION_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 }
export const EMBEDDING_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 1_000, maxDelayMs: 16_000, maxRetryAfterMs: 60_000 }

const PERMANENT_STATUSES = new Set([400, 401, 403, 404, 413, 422])
const RETRYABLE_STATUSES = new Set([408, 409, 429])
const REQUEST_SPECIFIC_STATUSES = new Set([400, 404, 413, 422])

/** Retry-After as milliseconds: retry-after-ms first, then retry-after (seconds or date). */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined
  const ms = headers.get('retry-after-ms')
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.ceil(Number(ms))
  const after = headers.get('retry-after')
  if (after === null || after.trim() === '') return undefined
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Math.ceil(Number(after) * 1000)
  const date = Date.parse(after)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

interface ErrorFields { type?: string, code?: string, message?: string, detailCode?: string }

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : (typeof value === 'number' ? String(value) : undefined)
}

/** The error fields of any provider's error body (Anthropic, OpenAI, Mistral, Voyage, FastAPI-style). */
export function errorFields(body: unknown): ErrorFields {
  const root = asRecord(body)
  if (!root) return typeof body === 'string' ? { message: body.slice(0, 300) } : {}
  const nested = asRecord(root.error)
  const source = nested ?? root
  const details = asRecord(source.details)
  return {
    type: str(source.type),
    code: str(source.code),
    message: str(source.message) ?? str(root.message) ?? str(root.detail) ?? (typeof root.error === 'string' ? root.error : undefined),
    detailCode: str(details?.error_code),
  }
}

const SPEND_LIMIT = /spend(ing)? limit|usage limit|monthly limit|credit balance|billing/i

/** Turns a provider's HTTP error response into a ProviderError that knows whether to retry. */
export function httpFailure(
  provider: ProviderId,
  status: number,
  headers: Headers | undefined,
  body: unknown,
  now?: number,
): ProviderError {
  const fields = errorFields(body)
  const detail = fields.message
  const kind = fields.type ?? fields.code
  const base = { provider, status, detail }
  if (fields.type === 'billing_error' || fields.code === 'billing_error') {
    return new ProviderError({ ...base, code: 'billing_error', retryable: false })
  }
  if (fields.code === 'insufficient_quota' || fields.type === 'insufficient_quota') {
    return new ProviderError({ ...base, code: 'insufficient_quota', retryable: false })
  }
  if (fields.detailCode === 'enforced_spend_limit_reached' || ((status === 429 || status === 400) && detail && SPEND_LIMIT.test(detail))) {
    return new ProviderError({ ...base, code: 'spend_limit', retryable: false })
  }
  if (status === 402) return new ProviderError({ ...base, code: 'billing_error', retryable: false })
  if (PERMANENT_STATUSES.has(status)) {
    return new ProviderError({
      ...base,
      code: kind ? `http_${status}_${kind}` : `http_${status}`,
      retryable: false,
      requestSpecific: REQUEST_SPECIFIC_STATUSES.has(status),
    })
  }
  const wait = retryAfterMs(headers, now)
  if (status === 529 || fields.type === 'overloaded_error') {
    return new ProviderError({ ...base, code: 'overloaded', retryable: true, retryAfterMs: wait })
  }
  if (status === 429) return new ProviderError({ ...base, code: 'rate_limited', retryable: true, retryAfterMs: wait })
  if (RETRYABLE_STATUSES.has(status) || status >= 500) {
    return new ProviderError({ ...base, code: `http_${status}`, retryable: true, retryAfterMs: wait })
  }
  return new ProviderError({ ...base, code: `http_${status}`, retryable: false })
}

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempt counts from 1), or null when
 * the failure must not be retried.
 */
export function retryDelay(error: ProviderError, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | null {
  if (!error.retryable || attempt >= policy.attempts) return null
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs > policy.maxRetryAfterMs ? null : error.retryAfterMs
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  // "Equal jitter": half fixed, half random, so waits never collapse to zero.
  return Math.round(exponential / 2 + random() * (exponential / 2))
}
