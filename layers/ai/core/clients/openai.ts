// OpenAI: chat completions (`max_completion_tokens`) and embeddings with `dimensions: 1024`;
// the OpenAI-compatible endpoint (Ollama, vLLM, LM Studio) speaks the classic dialect with
// an optional key.
import type { $Fetch } from 'ofetch'
import { openAiStyleChat, openAiStyleEmbed, type OpenAiStyleOptions } from './openai-style'
import type { ProviderClient } from './types'

export function createOpenAiClient(options: { fetch: $Fetch, baseUrl: string, apiKey: string }): ProviderClient {
  const wire: OpenAiStyleOptions = { provider: 'openai', ...options, maxTokensField: 'max_completion_tokens', sendDimensions: true }
  return {
    provider: 'openai',
    via: 'api',
    chat: request => openAiStyleChat(wire, request),
    embed: request => openAiStyleEmbed(wire, request),
  }
}

export function createOpenAiCompatClient(options: {
  fetch: $Fetch
  baseUrl: string
  apiKey?: string
  inputPrefixes?: { query: string, document: string }
}): ProviderClient {
  const wire: OpenAiStyleOptions = { provider: 'openai-compat', ...options, maxTokensField: 'max_tokens', sendDimensions: false }
  return {
    provider: 'openai-compat',
    via: 'api',
    chat: request => openAiStyleChat(wire, request),
    embed: request => openAiStyleEmbed(wire, request),
  }
}
