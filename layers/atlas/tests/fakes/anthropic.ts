// A scripted loopback Anthropic Messages API for the real Claude Code CLI: POST /v1/messages,
// streamed as server-sent events exactly as the API sends them (message_start,
// content_block_start / content_block_delta with text_delta or input_json_delta /
// content_block_stop, message_delta with the stop reason, message_stop), or as one JSON
// message when not streamed. The agent loop (a request offering the Bash tool) gets the
// scripted turns in order, chosen by how many tool results the conversation holds; any side
// request (a title, a summary) gets a short text. Records each request's API key, headers and
// raw body (what a credential check looks for).
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ScriptedBlock = { type: 'text', text: string } | { type: 'tool_use', name: string, input: Record<string, unknown> }
export type ScriptedTurn = (request: { system: string, messages: unknown[] }) => ScriptedBlock[]

export interface FakeAnthropic {
  url: string
  /** host:port, for the sandbox's allowlist. */
  host: string
  keys: string[]
  requests: Array<{ path: string, stream: boolean, agentLoop: boolean, headers: IncomingHttpHeaders, body: string }>
  close: () => Promise<void>
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system
  if (Array.isArray(system)) return system.map(part => (part as { text?: string }).text ?? '').join('\n')
  return ''
}

function toolResults(messages: unknown[]): number {
  let count = 0
  for (const message of messages as Array<{ content?: unknown }>) {
    if (Array.isArray(message.content)) count += message.content.filter(part => (part as { type?: string }).type === 'tool_result').length
  }
  return count
}

export async function startFakeAnthropic(turns: ScriptedTurn[]): Promise<FakeAnthropic> {
  const keys: string[] = []
  const requests: FakeAnthropic['requests'] = []
  let ids = 0
  const server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? '/').split('?')[0]!
      const raw = await body(request)
      keys.push(String(request.headers['x-api-key'] ?? request.headers.authorization ?? ''))
      const seen = { path, headers: request.headers, body: raw }
      if (request.method !== 'POST' || !path.endsWith('/v1/messages')) {
        requests.push({ ...seen, stream: false, agentLoop: false })
        response.statusCode = path.endsWith('/count_tokens') ? 200 : 404
        return void response.end(JSON.stringify(path.endsWith('/count_tokens') ? { input_tokens: 100 } : { type: 'error', error: { type: 'not_found_error', message: path } }))
      }
      const payload = JSON.parse(raw) as {
        stream?: boolean
        tools?: Array<{ name: string }>
        system?: unknown
        messages?: unknown[]
        model?: string
      }
      const agentLoop = (payload.tools ?? []).some(tool => tool.name === 'Bash')
      const stream = payload.stream === true
      requests.push({ ...seen, stream, agentLoop })
      const messages = payload.messages ?? []
      const turn = agentLoop ? turns[Math.min(toolResults(messages), turns.length - 1)]! : () => [{ type: 'text', text: 'Atlas request' } as ScriptedBlock]
      const blocks = turn({ system: systemText(payload.system), messages })
      const model = payload.model ?? 'claude-sonnet-4-6'
      const id = `msg_fake_${++ids}`
      const stopReason = blocks.some(block => block.type === 'tool_use') ? 'tool_use' : 'end_turn'
      const content = blocks.map((block, index) => block.type === 'text' ? block : { type: 'tool_use', id: `toolu_fake_${ids}_${index}`, name: block.name, input: block.input })
      const usage = { input_tokens: 120, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
      if (!stream) {
        response.setHeader('content-type', 'application/json')
        return void response.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage }))
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` })
      const send = (event: string, data: Record<string, unknown>) => response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`)
      send('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } })
      content.forEach((block, index) => {
        if (block.type === 'text') {
          send('content_block_start', { index, content_block: { type: 'text', text: '' } })
          for (const word of (block as { text: string }).text.match(/\S+\s*/g) ?? ['']) send('content_block_delta', { index, delta: { type: 'text_delta', text: word } })
        }
        else {
          const tool = block as { id: string, name: string, input: Record<string, unknown> }
          send('content_block_start', { index, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } })
          const json = JSON.stringify(tool.input)
          for (let at = 0; at < json.length; at += 40) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(at, at + 40) } })
        }
        send('content_block_stop', { index })
      })
      send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 40 } })
      send('message_stop', {})
      response.end()
    })().catch((error: unknown) => {
      response.statusCode = 500
      response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: (error as Error).message } }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    keys,
    requests,
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  }
}
