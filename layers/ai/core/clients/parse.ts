// Reading provider answers defensively: a 200 with an unexpected body is a provider failure.
import type { ProviderId } from '../catalog'
import { ProviderError } from '../errors'

export function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0
}

export function malformed(provider: ProviderId, what: string): ProviderError {
  return new ProviderError({ provider, code: 'malformed_response', retryable: true, detail: what })
}

/** The `data` array of an OpenAI-style embeddings answer (Mistral, OpenAI, Voyage, compatible servers), in input order. */
export function embeddingVectors(provider: ProviderId, body: unknown, expected: number, dimensions: number): number[][] {
  const data = record(body)?.data
  if (!Array.isArray(data) || data.length !== expected) throw malformed(provider, `expected ${expected} embeddings, got ${Array.isArray(data) ? data.length : 'none'}`)
  const rows = data.map((item, position) => {
    const entry = record(item)
    const index = typeof entry?.index === 'number' ? entry.index : position
    const vector = entry?.embedding
    if (!Array.isArray(vector) || !vector.every(x => typeof x === 'number')) throw malformed(provider, 'an embedding is not an array of numbers')
    return { index, vector: vector as number[] }
  })
  rows.sort((a, b) => a.index - b.index)
  for (const row of rows) {
    if (row.vector.length !== dimensions) {
      throw new ProviderError({ provider, code: 'dimension_mismatch', retryable: false, requestSpecific: false, detail: `got ${row.vector.length} dimensions, the index needs ${dimensions}` })
    }
  }
  return rows.map(row => row.vector)
}

/** The assistant text of an OpenAI-style chat answer (Mistral, OpenAI, compatible servers). */
export function chatText(provider: ProviderId, body: unknown): string {
  const choices = record(body)?.choices
  const first = Array.isArray(choices) ? record(choices[0]) : undefined
  const content = record(first?.message)?.content
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content.map(part => (typeof part === 'string' ? part : String(record(part)?.text ?? ''))).join('')
  }
  throw malformed(provider, 'no choices[0].message.content in the answer')
}
