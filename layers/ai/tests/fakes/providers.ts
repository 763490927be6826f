// Default responders speaking each provider's wire format: the request shapes they accept
// and the response and error bodies they send back. A wrong key gets the provider's 401,
// echoing the key the way some real APIs do (so the redaction is put to the test).
import type { FakeAnswer, RecordedRequest, Responder } from './server'

function fakeVector(seed: number, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) => Math.sin(seed + i) / Math.sqrt(dimensions / 2))
}

function inputs(body: Record<string, unknown>): string[] {
  const input = body.input
  return Array.isArray(input) ? input.map(String) : [String(input ?? '')]
}

function bearer(request: RecordedRequest): string | undefined {
  const header = request.headers.authorization
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined
}

export function openAiError(status: number, message: string, type: string, code: string | null = null): FakeAnswer {
  return { status, body: { error: { message, type, param: null, code } } }
}

export function mistralError(status: number, message: string, type = 'invalid_request_error'): FakeAnswer {
  return { status, body: { object: 'error', message, type, param: null, code: null } }
}

export function anthropicError(status: number, type: string, message: string, details?: Record<string, unknown>): FakeAnswer {
  return { status, body: { type: 'error', error: { type, message, ...(details ? { details } : {}) }, request_id: 'req_fake' } }
}

/** Mistral and OpenAI (and OpenAI-compatible servers) share the chat/embeddings shapes. */
export function openAiStyle(options: { key?: string, reply?: (request: RecordedRequest) => string, modelSuffix?: string, dimensions?: number, flavour: 'mistral' | 'openai' }): Responder {
  return (request) => {
    const key = bearer(request)
    if (options.key !== undefined && key !== options.key) {
      return options.flavour === 'openai'
        ? openAiError(401, `Incorrect API key provided: ${key ?? ''}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key')
        : { status: 401, body: { message: `Unauthorized (key ${key ?? 'none'})`, request_id: 'fake' } }
    }
    const body = request.body
    if (request.method === 'POST' && request.path === '/v1/chat/completions') {
      const messages = body.messages as Array<{ role: string, content: string }> | undefined
      if (!Array.isArray(messages) || messages.length === 0) return options.flavour === 'openai' ? openAiError(400, 'messages is required', 'invalid_request_error') : mistralError(422, 'messages: field required')
      const content = options.reply ? options.reply(request) : `echo: ${messages[messages.length - 1]!.content}`
      return {
        body: {
          id: 'cmpl-fake',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: `${String(body.model)}${options.modelSuffix ?? ''}`,
          choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: null }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
        },
      }
    }
    if (request.method === 'POST' && request.path === '/v1/embeddings') {
      const texts = inputs(body)
      const dimensions = options.dimensions ?? (typeof body.dimensions === 'number' ? body.dimensions : 1024)
      return {
        body: {
          id: 'embd-fake',
          object: 'list',
          data: texts.map((text, index) => ({ object: 'embedding', embedding: fakeVector(text.length + index, dimensions), index })).reverse(),
          model: String(body.model),
          usage: { prompt_tokens: texts.length * 3, total_tokens: texts.length * 3, completion_tokens: 0 },
        },
      }
    }
    return { status: 404, body: { detail: 'Not Found' } }
  }
}

export function anthropicLike(options: { key?: string, reply?: (request: RecordedRequest) => string } = {}): Responder {
  return (request) => {
    if (options.key !== undefined && request.headers['x-api-key'] !== options.key) {
      return anthropicError(401, 'authentication_error', `invalid x-api-key ${String(request.headers['x-api-key'] ?? '')}`)
    }
    if (request.headers['anthropic-version'] !== '2023-06-01') return anthropicError(400, 'invalid_request_error', 'anthropic-version header is required')
    if (request.method !== 'POST' || request.path !== '/v1/messages') return anthropicError(404, 'not_found_error', 'Not found')
    const body = request.body
    if (typeof body.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required')
    const messages = body.messages as Array<{ role: string, content: string }>
    const text = options.reply ? options.reply(request) : `claude says: ${messages[messages.length - 1]!.content}`
    return {
      body: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: String(body.model),
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 20, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }
  }
}

export function voyageLike(options: { key?: string } = {}): Responder {
  return (request) => {
    if (options.key !== undefined && bearer(request) !== options.key) return { status: 401, body: { detail: 'Provided API key is invalid.' } }
    if (request.method !== 'POST' || request.path !== '/v1/embeddings') return { status: 404, body: { detail: 'Not Found' } }
    const texts = inputs(request.body)
    return {
      body: {
        object: 'list',
        data: texts.map((text, index) => ({ object: 'embedding', embedding: fakeVector(text.length * 7 + index, 1024), index })),
        model: String(request.body.model),
        usage: { total_tokens: texts.length * 4 },
      },
    }
  }
}
