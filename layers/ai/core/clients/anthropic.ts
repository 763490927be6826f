// Anthropic Messages API: POST {base}/v1/messages with x-api-key and anthropic-version,
// a top-level `system`, the required `max_tokens`; short aliases resolved to full ids.
// No JSON mode: the instruction goes into the system prompt and the caller parses.
import type { $Fetch } from 'ofetch'
import { resolveAnthropicModel } from '../catalog'
import { postJson } from '../http'
import { count, malformed, record } from './parse'
import { anthropicMessages, anthropicToolCalls, anthropicTools, conversation } from './tool-wire'
import type { ProviderClient } from './types'

export const ANTHROPIC_VERSION = '2023-06-01'
export const JSON_INSTRUCTION = 'Answer with one JSON object only: no prose, no code fence.'

export function createAnthropicClient(options: { fetch: $Fetch, baseUrl: string, apiKey: string }): ProviderClient {
  return {
    provider: 'anthropic',
    via: 'api',
    async chat(request) {
      const system = [request.system, request.json ? JSON_INSTRUCTION : undefined].filter(Boolean).join('\n\n')
      const body: Record<string, unknown> = {
        model: resolveAnthropicModel(request.model),
        max_tokens: request.maxTokens,
        temperature: request.temperature,
        messages: anthropicMessages(conversation(request)),
      }
      if (system) body.system = system
      if (request.tools && request.tools.length > 0) body.tools = anthropicTools(request.tools)
      const { data } = await postJson(options.fetch, 'anthropic', `${options.baseUrl}/v1/messages`, {
        headers: { 'x-api-key': options.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        body,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
      })
      const answer = record(data)
      const content = answer?.content
      if (!Array.isArray(content)) throw malformed('anthropic', 'no content blocks in the answer')
      const text = content.map(block => (record(block)?.type === 'text' ? String(record(block)?.text ?? '') : '')).join('')
      const usage = record(answer?.usage)
      const toolCalls = anthropicToolCalls(content)
      return {
        content: text,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        model: typeof answer?.model === 'string' ? answer.model : String(body.model),
        tokensIn: count(usage?.input_tokens) + count(usage?.cache_creation_input_tokens) + count(usage?.cache_read_input_tokens),
        tokensOut: count(usage?.output_tokens),
      }
    },
  }
}
