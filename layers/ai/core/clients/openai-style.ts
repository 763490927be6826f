// The OpenAI chat/embeddings wire format, shared by Mistral, OpenAI and self-hosted
// OpenAI-compatible servers (Ollama, vLLM, LM Studio); each fills in its differences.
import type { $Fetch } from 'ofetch'
import type { ProviderId } from '../catalog'
import { postJson } from '../http'
import { chatText, count, embeddingVectors, record } from './parse'
import { conversation, openAiMessages, openAiToolCalls, openAiTools } from './tool-wire'
import type { ChatRequest, ChatResult, EmbedRequest, EmbedResult } from './types'

export interface OpenAiStyleOptions {
  provider: ProviderId
  fetch: $Fetch
  baseUrl: string
  apiKey?: string
  /** The body field of the output cap: OpenAI's current `max_completion_tokens` or the classic `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens'
  /** Send `dimensions` with embedding requests (OpenAI's text-embedding-3 models). */
  sendDimensions: boolean
  /** Put before each text by input type (models such as e5 need `query: ` / `passage: `). */
  inputPrefixes?: { query: string, document: string }
}

function headers(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {}
}

export async function openAiStyleChat(options: OpenAiStyleOptions, request: ChatRequest): Promise<ChatResult> {
  const messages = [
    ...(request.system ? [{ role: 'system', content: request.system }] : []),
    ...openAiMessages(conversation(request)),
  ]
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    temperature: request.temperature,
    [options.maxTokensField]: request.maxTokens,
  }
  if (request.json) body.response_format = { type: 'json_object' }
  if (request.tools && request.tools.length > 0) body.tools = openAiTools(request.tools)
  const { data } = await postJson(options.fetch, options.provider, `${options.baseUrl}/chat/completions`, {
    headers: headers(options.apiKey), body, timeoutMs: request.timeoutMs, signal: request.signal,
  })
  const usage = record(record(data)?.usage)
  const toolCalls = openAiToolCalls(data)
  return {
    // A tool-calling answer may carry no text at all (content null).
    content: toolCalls.length > 0 ? chatTextOrEmpty(options.provider, data) : chatText(options.provider, data),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    model: typeof record(data)?.model === 'string' ? String(record(data)!.model) : request.model,
    tokensIn: count(usage?.prompt_tokens),
    tokensOut: count(usage?.completion_tokens),
  }
}

function chatTextOrEmpty(provider: OpenAiStyleOptions['provider'], data: unknown): string {
  const choices = record(data)?.choices
  const content = record(record(Array.isArray(choices) ? choices[0] : undefined)?.message)?.content
  return content === null || content === undefined ? '' : chatText(provider, data)
}

export async function openAiStyleEmbed(options: OpenAiStyleOptions, request: EmbedRequest): Promise<EmbedResult> {
  const prefix = request.inputType ? options.inputPrefixes?.[request.inputType] ?? '' : ''
  const body: Record<string, unknown> = { model: request.model, input: prefix ? request.texts.map(text => `${prefix}${text}`) : request.texts }
  if (options.sendDimensions) body.dimensions = request.dimensions
  const { data } = await postJson(options.fetch, options.provider, `${options.baseUrl}/embeddings`, {
    headers: headers(options.apiKey), body, timeoutMs: request.timeoutMs, signal: request.signal,
  })
  const usage = record(record(data)?.usage)
  return {
    vectors: embeddingVectors(options.provider, data, request.texts.length, request.dimensions),
    model: typeof record(data)?.model === 'string' ? String(record(data)!.model) : request.model,
    tokensIn: count(usage?.prompt_tokens ?? usage?.total_tokens),
  }
}
