// One POST to a provider over ofetch: JSON in, JSON out, a timeout that covers the whole
// exchange (headers and body), the caller's abort signal, and every failure turned into a
// ProviderError (the raw FetchError, which holds the request headers, never escapes).
import type { $Fetch } from 'ofetch'
import type { ProviderId } from './catalog'
import { AiAbortedError, ProviderError } from './errors'
import { httpFailure } from './retry'

export interface PostJsonOptions {
  headers: Record<string, string>
  body: unknown
  timeoutMs: number
  signal?: AbortSignal
}

export interface JsonResponse { status: number, headers: Headers, data: unknown }

class TimeoutReason extends Error {
  constructor() {
    super('timeout')
    this.name = 'TimeoutError'
  }
}

/** The system error code under a failed fetch (ECONNREFUSED, ENOTFOUND…), else its deepest message. */
function transportCode(error: unknown): string | undefined {
  let current: unknown = error
  let deepest: string | undefined
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const { code, message } = current as { code?: unknown, message?: unknown }
    if (typeof code === 'string' && code) return code
    if (depth > 0 && typeof message === 'string' && message) deepest = message.slice(0, 120)
    current = (current as { cause?: unknown }).cause
  }
  return deepest
}

export async function postJson(fetcher: $Fetch, provider: ProviderId, url: string, options: PostJsonOptions): Promise<JsonResponse> {
  if (options.signal?.aborted) throw new AiAbortedError()
  const timer = new AbortController()
  const timeout = setTimeout(() => timer.abort(new TimeoutReason()), options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal
  let response: { status: number, headers: Headers, _data?: unknown }
  try {
    response = await fetcher.raw(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept': 'application/json', ...options.headers },
      body: options.body as Record<string, unknown>,
      signal,
      retry: false,
      ignoreResponseError: true,
    })
  }
  catch (error) {
    if (options.signal?.aborted) throw new AiAbortedError()
    if (timer.signal.aborted) {
      throw new ProviderError({ provider, code: 'timeout', retryable: true, detail: `no complete answer within ${options.timeoutMs} ms` })
    }
    const code = transportCode(error)
    throw new ProviderError({ provider, code: 'network', retryable: true, detail: code ?? 'the connection failed' })
  }
  finally {
    clearTimeout(timeout)
  }
  if (response.status >= 400) throw httpFailure(provider, response.status, response.headers, response._data)
  return { status: response.status, headers: response.headers, data: response._data }
}
