// Each provider's client against a loopback fake speaking its wire format: what the fake
// received (path, headers, body fields) and how the answer is read.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ofetch } from 'ofetch'
import { startFakeServer, type FakeServer } from '../fakes/server'
import { anthropicError, anthropicLike, openAiError, openAiStyle, voyageLike } from '../fakes/providers'
import { createMistralClient } from '../../core/clients/mistral'
import { createOpenAiClient, createOpenAiCompatClient } from '../../core/clients/openai'
import { createAnthropicClient } from '../../core/clients/anthropic'
import { createVoyageClient } from '../../core/clients/voyage'
import { ProviderError } from '../../core/errors'
import { rejection } from '../fakes/harness'

const chat = { system: 'You are terse.', prompt: 'Say hi', maxTokens: 256, temperature: 0, json: false, timeoutMs: 5_000, feature: 'test' }

let mistral: FakeServer
let openai: FakeServer
let anthropic: FakeServer
let voyage: FakeServer
let compat: FakeServer

beforeAll(async () => {
  mistral = await startFakeServer(openAiStyle({ key: 'mistral-key', flavour: 'mistral' }))
  openai = await startFakeServer(openAiStyle({ key: 'openai-key', flavour: 'openai', modelSuffix: '-2024-08-06' }))
  anthropic = await startFakeServer(anthropicLike({ key: 'anthropic-key' }))
  voyage = await startFakeServer(voyageLike({ key: 'voyage-key' }))
  compat = await startFakeServer(openAiStyle({ flavour: 'openai', dimensions: 1024 }))
})
afterAll(async () => {
  await Promise.all([mistral, openai, anthropic, voyage, compat].map(server => server.close()))
})
beforeEach(() => {
  for (const server of [mistral, openai, anthropic, voyage, compat]) server.reset()
})

describe('Mistral client', () => {
  const client = () => createMistralClient({ fetch: ofetch, baseUrl: `${mistral.url}/v1`, apiKey: 'mistral-key' })

  it('sends chat completions with a Bearer key, system + user messages, and JSON mode when asked', async () => {
    const result = await client().chat!({ ...chat, model: 'mistral-small-latest', json: true })
    const [request] = mistral.requests
    expect(request!.method).toBe('POST')
    expect(request!.path).toBe('/v1/chat/completions')
    expect(request!.headers.authorization).toBe('Bearer mistral-key')
    expect(request!.headers['content-type']).toContain('application/json')
    expect(request!.body).toMatchObject({
      model: 'mistral-small-latest',
      temperature: 0,
      max_tokens: 256,
      response_format: { type: 'json_object' },
      messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hi' }],
    })
    expect(result).toEqual({ content: 'echo: Say hi', model: 'mistral-small-latest', tokensIn: 12, tokensOut: 7 })
  })

  it('omits response_format and the system message when not asked for', async () => {
    await client().chat!({ ...chat, system: undefined, model: 'mistral-large-latest' })
    const body = mistral.requests[0]!.body
    expect(body).not.toHaveProperty('response_format')
    expect(body.messages).toEqual([{ role: 'user', content: 'Say hi' }])
  })

  it('embeds with `input` and reorders the answer by index', async () => {
    const result = await client().embed!({ model: 'mistral-embed', texts: ['a', 'bb', 'ccc'], dimensions: 1024, timeoutMs: 5_000 })
    const [request] = mistral.requests
    expect(request!.path).toBe('/v1/embeddings')
    expect(request!.body).toEqual({ model: 'mistral-embed', input: ['a', 'bb', 'ccc'] })
    expect(result.vectors).toHaveLength(3)
    expect(result.vectors[0]![0]).toBeCloseTo(Math.sin(1) / Math.sqrt(512))
    expect(result.vectors[2]![0]).toBeCloseTo(Math.sin(5) / Math.sqrt(512))
    expect(result.tokensIn).toBe(9)
  })

  it('reads Mistral\'s error shape', async () => {
    mistral.script({ status: 422, body: { object: 'error', message: 'max_tokens must be positive', type: 'invalid_request_error', param: null, code: null } })
    const error = await rejection<ProviderError>(client().chat!({ ...chat, model: 'mistral-small-latest' }))
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ provider: 'mistral', status: 422, retryable: false })
    expect(error.message).toContain('max_tokens must be positive')
  })

  it('refuses an embedding of the wrong dimension', async () => {
    const small = await startFakeServer(openAiStyle({ flavour: 'mistral', dimensions: 768 }))
    const error = await createMistralClient({ fetch: ofetch, baseUrl: `${small.url}/v1`, apiKey: 'k' })
      .embed!({ model: 'mistral-embed', texts: ['x'], dimensions: 1024, timeoutMs: 5_000 }).catch(e => e as ProviderError)
    await small.close()
    expect(error).toMatchObject({ code: 'dimension_mismatch', retryable: false })
  })
})

describe('OpenAI client', () => {
  const client = () => createOpenAiClient({ fetch: ofetch, baseUrl: `${openai.url}/v1`, apiKey: 'openai-key' })

  it('sends chat with max_completion_tokens and names the model the response names', async () => {
    const result = await client().chat!({ ...chat, model: 'gpt-4o' })
    const [request] = openai.requests
    expect(request!.path).toBe('/v1/chat/completions')
    expect(request!.headers.authorization).toBe('Bearer openai-key')
    expect(request!.body).toMatchObject({ model: 'gpt-4o', max_completion_tokens: 256, temperature: 0 })
    expect(request!.body).not.toHaveProperty('max_tokens')
    expect(result.model).toBe('gpt-4o-2024-08-06')
  })

  it('embeds with dimensions: 1024', async () => {
    const result = await client().embed!({ model: 'text-embedding-3-small', texts: ['hello'], dimensions: 1024, timeoutMs: 5_000 })
    expect(openai.requests[0]!.body).toEqual({ model: 'text-embedding-3-small', input: ['hello'], dimensions: 1024 })
    expect(result.vectors[0]).toHaveLength(1024)
  })

  it('classifies insufficient_quota as permanent', async () => {
    openai.script(openAiError(429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota'))
    const error = await rejection<ProviderError>(client().chat!({ ...chat, model: 'gpt-4o' }))
    expect(error).toMatchObject({ code: 'insufficient_quota', retryable: false, status: 429 })
  })
})

describe('OpenAI-compatible endpoint (Ollama, vLLM, LM Studio)', () => {
  it('speaks the classic dialect, with no key when none is set', async () => {
    const client = createOpenAiCompatClient({ fetch: ofetch, baseUrl: `${compat.url}/v1` })
    const result = await client.chat!({ ...chat, model: 'llama3.1:8b' })
    const [request] = compat.requests
    expect(request!.path).toBe('/v1/chat/completions')
    expect(request!.headers.authorization).toBeUndefined()
    expect(request!.body).toMatchObject({ model: 'llama3.1:8b', max_tokens: 256 })
    expect(result.content).toBe('echo: Say hi')
    await client.embed!({ model: 'nomic-embed-text', texts: ['x'], dimensions: 1024, timeoutMs: 5_000 })
    expect(compat.requests[1]!.body).toEqual({ model: 'nomic-embed-text', input: ['x'] })
  })

  it('sends a Bearer key when one is set', async () => {
    const client = createOpenAiCompatClient({ fetch: ofetch, baseUrl: `${compat.url}/v1`, apiKey: 'vllm-token' })
    await client.chat!({ ...chat, model: 'qwen' })
    expect(compat.requests[0]!.headers.authorization).toBe('Bearer vllm-token')
  })
})

describe('Anthropic client', () => {
  const client = () => createAnthropicClient({ fetch: ofetch, baseUrl: anthropic.url, apiKey: 'anthropic-key' })

  it('posts /v1/messages with x-api-key, anthropic-version, top-level system and max_tokens, resolving aliases', async () => {
    const result = await client().chat!({ ...chat, model: 'sonnet' })
    const [request] = anthropic.requests
    expect(request!.path).toBe('/v1/messages')
    expect(request!.headers['x-api-key']).toBe('anthropic-key')
    expect(request!.headers['anthropic-version']).toBe('2023-06-01')
    expect(request!.headers.authorization).toBeUndefined()
    expect(request!.body).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      temperature: 0,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Say hi' }],
    })
    expect(result).toEqual({ content: 'claude says: Say hi', model: 'claude-sonnet-4-6', tokensIn: 20, tokensOut: 10 })
  })

  it('resolves haiku and opus, and asks for JSON in the system prompt', async () => {
    await client().chat!({ ...chat, model: 'haiku', json: true })
    await client().chat!({ ...chat, model: 'opus', system: undefined })
    expect(anthropic.requests[0]!.body.model).toBe('claude-haiku-4-5')
    expect(String(anthropic.requests[0]!.body.system)).toMatch(/^You are terse\.\n\nAnswer with one JSON object only/)
    expect(anthropic.requests[1]!.body.model).toBe('claude-opus-4-6')
    expect(anthropic.requests[1]!.body).not.toHaveProperty('system')
  })

  it.each([
    [529, 'overloaded_error', 'Overloaded', undefined, { code: 'overloaded', retryable: true }],
    [429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', undefined, { code: 'rate_limited', retryable: true }],
    [429, 'rate_limit_error', 'You have reached your monthly spend limit', { error_code: 'enforced_spend_limit_reached' }, { code: 'spend_limit', retryable: false }],
    [402, 'billing_error', 'Your credit balance is too low', undefined, { code: 'billing_error', retryable: false }],
    [401, 'authentication_error', 'invalid x-api-key', undefined, { code: 'http_401_authentication_error', retryable: false }],
    [413, 'request_too_large', 'Request exceeds the maximum size', undefined, { code: 'http_413_request_too_large', retryable: false }],
    [500, 'api_error', 'Internal server error', undefined, { code: 'http_500', retryable: true }],
  ])('reads HTTP %i %s (%s)', async (status, type, message, details, expected) => {
    anthropic.script(anthropicError(status, type, message, details))
    const error = await rejection<ProviderError>(client().chat!({ ...chat, model: 'haiku' }))
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ provider: 'anthropic', status, ...expected })
  })
})

describe('Voyage client', () => {
  it('embeds with input_type and a Bearer key', async () => {
    const client = createVoyageClient({ fetch: ofetch, baseUrl: `${voyage.url}/v1`, apiKey: 'voyage-key' })
    const result = await client.embed!({ model: 'voyage-3', texts: ['query text'], inputType: 'query', dimensions: 1024, timeoutMs: 5_000 })
    const [request] = voyage.requests
    expect(request!.path).toBe('/v1/embeddings')
    expect(request!.headers.authorization).toBe('Bearer voyage-key')
    expect(request!.body).toEqual({ input: ['query text'], model: 'voyage-3', input_type: 'query' })
    expect(result).toMatchObject({ model: 'voyage-3', tokensIn: 4 })
    expect(result.vectors[0]).toHaveLength(1024)
    await client.embed!({ model: 'voyage-3', texts: ['doc'], inputType: 'document', dimensions: 1024, timeoutMs: 5_000 })
    expect(voyage.requests[1]!.body.input_type).toBe('document')
  })
})

describe('transport failures', () => {
  it('turns a dropped connection into a retryable network error', async () => {
    mistral.script({ destroy: true })
    const error = await createMistralClient({ fetch: ofetch, baseUrl: `${mistral.url}/v1`, apiKey: 'mistral-key' })
      .chat!({ ...chat, model: 'm' }).catch(e => e as ProviderError)
    expect(error).toMatchObject({ code: 'network', retryable: true })
  })

  it('times out on a slow answer, and on a body that stalls after the headers', async () => {
    const client = createMistralClient({ fetch: ofetch, baseUrl: `${mistral.url}/v1`, apiKey: 'mistral-key' })
    mistral.script({ delayMs: 1_000, body: {} })
    const slow = await rejection<ProviderError>(client.chat!({ ...chat, model: 'm', timeoutMs: 100 }))
    expect(slow).toMatchObject({ code: 'timeout', retryable: true })
    mistral.script({ stallBodyMs: 1_000, body: { choices: [] } })
    const stalled = await rejection<ProviderError>(client.chat!({ ...chat, model: 'm', timeoutMs: 150 }))
    expect(stalled).toMatchObject({ code: 'timeout', retryable: true })
  })

  it('treats a 200 with an unexpected body as a retryable malformed answer', async () => {
    mistral.script({ body: { nothing: true } })
    const error = await createMistralClient({ fetch: ofetch, baseUrl: `${mistral.url}/v1`, apiKey: 'mistral-key' })
      .chat!({ ...chat, model: 'm' }).catch(e => e as ProviderError)
    expect(error).toMatchObject({ code: 'malformed_response', retryable: true })
  })
})
