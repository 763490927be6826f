// Mistral: POST {base}/chat/completions (JSON mode `response_format: json_object`) and
// POST {base}/embeddings with `input`; Bearer key.
import type { $Fetch } from 'ofetch'
import { openAiStyleChat, openAiStyleEmbed, type OpenAiStyleOptions } from './openai-style'
import type { ProviderClient } from './types'

export function createMistralClient(options: { fetch: $Fetch, baseUrl: string, apiKey: string }): ProviderClient {
  const wire: OpenAiStyleOptions = { provider: 'mistral', ...options, maxTokensField: 'max_tokens', sendDimensions: false }
  return {
    provider: 'mistral',
    via: 'api',
    chat: request => openAiStyleChat(wire, request),
    embed: request => openAiStyleEmbed(wire, request),
  }
}
