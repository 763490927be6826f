// Voyage embeddings: POST {base}/embeddings with `input`, `model` and `input_type`
// (query / document); voyage-3 answers 1024 dimensions. Bearer key.
import type { $Fetch } from 'ofetch'
import { postJson } from '../http'
import { count, embeddingVectors, record } from './parse'
import type { ProviderClient } from './types'

export function createVoyageClient(options: { fetch: $Fetch, baseUrl: string, apiKey: string }): ProviderClient {
  return {
    provider: 'voyage',
    via: 'api',
    async embed(request) {
      const body: Record<string, unknown> = { input: request.texts, model: request.model }
      if (request.inputType) body.input_type = request.inputType
      const { data } = await postJson(options.fetch, 'voyage', `${options.baseUrl}/embeddings`, {
        headers: { authorization: `Bearer ${options.apiKey}` }, body, timeoutMs: request.timeoutMs, signal: request.signal,
      })
      return {
        vectors: embeddingVectors('voyage', data, request.texts.length, request.dimensions),
        model: typeof record(data)?.model === 'string' ? String(record(data)!.model) : request.model,
        tokensIn: count(record(record(data)?.usage)?.total_tokens),
      }
    },
  }
}
