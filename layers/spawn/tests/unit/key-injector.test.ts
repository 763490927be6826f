// The key injector (layers/spawn/core/key-injector.ts) against a loopback upstream that
// records what reaches it: only a request carrying the placeholder is forwarded, with the real
// key in the header that carried it; the body arrives byte for byte (even when it holds the
// placeholder, or the key itself); the answer streams back as it comes; the key is never in a
// log line, whatever goes wrong.
import { randomBytes } from 'node:crypto'
import { createServer, request, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startKeyInjector, startSpawnKeyInjector, type KeyInjector } from '#layers/spawn/core/key-injector'

const KEY = `sk-ant-api03-real-${randomBytes(8).toString('hex')}`

interface Received { method: string, url: string, headers: IncomingHttpHeaders, body: Buffer }

async function startUpstream(answer: (received: Received, response: ServerResponse) => void = (_, response) => response.end('{"ok":true}')) {
  const received: Received[] = []
  const server = createServer((req, response) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) }
      received.push(entry)
      answer(entry, response)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

interface Answer { status: number, headers: IncomingHttpHeaders, body: Buffer }

/** One request to the injector; `chunks` are written apart (chunked transfer encoding when no length is given). */
function call(
  url: string,
  options: { method?: string, path?: string, headers?: Record<string, string>, chunks?: Buffer[], onFirstByte?: (chunk: Buffer) => void },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path ?? '/v1/messages', url)
    const req = request(target, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) options.onFirstByte?.(chunk)
        chunks.push(chunk)
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    for (const chunk of options.chunks ?? []) req.write(chunk)
    req.end()
  })
}

const open: Array<{ close: () => unknown }> = []
afterEach(async () => {
  for (const item of open.splice(0)) await item.close()
})
function closeServer(server: Server) {
  return { close: () => new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  }) }
}

async function setUp(upstreamPath = '', answer?: Parameters<typeof startUpstream>[0]) {
  const upstream = await startUpstream(answer)
  open.push(closeServer(upstream.server))
  const logs: string[] = []
  const injector: KeyInjector = await startKeyInjector({ upstream: `${upstream.url}${upstreamPath}`, key: KEY, log: line => void logs.push(line), label: 'spawn-test' })
  open.push(injector)
  return { upstream, injector, logs }
}

describe('the key injector', () => {
  it('refuses, logs and never forwards a request without the placeholder', async () => {
    const { upstream, injector, logs } = await setUp()
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-api-key': 'sk-ant-something-else' },
      { 'x-api-key': `${injector.placeholder}x` },
      { authorization: injector.placeholder },
      { authorization: 'Bearer sk-ant-something-else' },
      // The key itself is no pass either: only what the worker handed out is.
      { 'x-api-key': KEY },
    ]
    for (const headers of attempts) {
      const answer = await call(injector.url, { headers: { 'content-type': 'application/json', ...headers }, chunks: [Buffer.from('{"model":"x"}')] })
      expect(answer.status, JSON.stringify(headers)).toBe(403)
      expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ type: 'error', error: { type: 'permission_error' } })
    }
    expect(upstream.received).toEqual([])
    expect(logs).toHaveLength(attempts.length)
    for (const line of logs) expect(line).toMatch(/^\[key-injector spawn-test\] refused POST \/v1\/messages: .*403, not forwarded/)
    expect(logs.join('\n')).not.toContain(KEY)
    expect(logs.join('\n')).not.toContain(injector.placeholder)
  })

  it('forwards with the real key in the header that carried the placeholder, the body byte for byte', async () => {
    const { upstream, injector, logs } = await setUp('/anthropic/')
    // A body holding the placeholder (the agent printed its environment), invalid UTF-8 and
    // more than one chunk, sent without a length (chunked): it must arrive as it left.
    const chunks = [Buffer.from(`{"messages":[{"role":"user","content":"ANTHROPIC_API_KEY=${injector.placeholder}"}],`), randomBytes(70_000), Buffer.from([0xFF, 0xFE, 0x00]), Buffer.from('"end":1}')]
    const answer = await call(injector.url, { path: '/v1/messages?beta=true', headers: { 'x-api-key': injector.placeholder, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'connection': 'keep-alive, x-hop', 'x-hop': 'dropped' }, chunks })
    expect(answer.status).toBe(200)
    expect(answer.body.toString('utf8')).toBe('{"ok":true}')
    const [got] = upstream.received
    expect(got!.method).toBe('POST')
    expect(got!.url).toBe('/anthropic/v1/messages?beta=true')
    expect(got!.headers['x-api-key']).toBe(KEY)
    expect(got!.headers.authorization).toBeUndefined()
    expect(got!.headers['anthropic-version']).toBe('2023-06-01')
    expect(got!.headers['x-hop']).toBeUndefined()
    expect(got!.headers.host).toBe(new URL(upstream.url).host)
    expect(got!.body.equals(Buffer.concat(chunks))).toBe(true)
    // Nothing substitutes into a body: the placeholder is still there, the key is not.
    expect(got!.body.includes(injector.placeholder)).toBe(true)
    expect(got!.body.includes(KEY)).toBe(false)

    // With a length, Authorization: Bearer; a body holding the key itself is not touched either.
    const body = Buffer.from(`{"echo":"${KEY}"}`)
    await call(injector.url, { headers: { 'authorization': `Bearer ${injector.placeholder}`, 'x-api-key': 'stray', 'content-length': String(body.length) }, chunks: [body] })
    const second = upstream.received[1]!
    expect(second.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(second.headers['x-api-key']).toBeUndefined()
    expect(second.body.equals(body)).toBe(true)
    // A GET goes through too (the CLI asks for more than messages).
    expect((await call(injector.url, { method: 'GET', path: '/v1/models', headers: { 'x-api-key': injector.placeholder } })).status).toBe(200)
    expect(upstream.received[2]).toMatchObject({ method: 'GET', url: '/anthropic/v1/models', body: Buffer.alloc(0) })
    expect(logs).toEqual([])
  })

  it('streams the answer back as it comes, status and headers included', async () => {
    let release!: () => void
    const released = new Promise<void>(resolve => release = resolve)
    const { injector } = await setUp('', (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1' })
      response.write('event: message_start\ndata: {}\n\n')
      void released.then(() => response.end('event: message_stop\ndata: {}\n\n'))
    })
    let first = ''
    const answer = await call(injector.url, {
      headers: { 'x-api-key': injector.placeholder },
      chunks: [Buffer.from('{}')],
      // The first event arrives while the upstream still holds the rest back.
      onFirstByte: (chunk) => {
        first = chunk.toString('utf8')
        release()
      },
    })
    expect(first).toBe('event: message_start\ndata: {}\n\n')
    expect(answer.status).toBe(200)
    expect(answer.headers).toMatchObject({ 'content-type': 'text/event-stream', 'request-id': 'req_1' })
    expect(answer.body.toString('utf8')).toBe('event: message_start\ndata: {}\n\nevent: message_stop\ndata: {}\n\n')
  })

  it('drops the upstream request, quietly, when the agent goes away mid-answer', async () => {
    let upstreamGone!: () => void
    const gone = new Promise<void>(resolve => upstreamGone = resolve)
    const { injector, logs } = await setUp('', (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('event: ping\ndata: {}\n\n')
      // Never ends by itself: only the injector letting go of it ends it.
      response.once('close', () => upstreamGone())
    })
    await new Promise<void>((resolve, reject) => {
      const req = request(new URL('/v1/messages', injector.url), { method: 'POST', headers: { 'x-api-key': injector.placeholder } }, (res) => {
        res.once('data', () => {
          req.destroy()
          resolve()
        })
      })
      req.on('error', (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET' ? undefined : reject(error))
      req.end('{}')
    })
    await gone
    expect(logs).toEqual([])
  })

  it('passes the model API\'s errors through, answers 502 when it is unreachable, and never logs the key', async () => {
    const { injector } = await setUp('', (_, response) => {
      response.writeHead(401, { 'content-type': 'application/json' })
      response.end('{"type":"error","error":{"type":"authentication_error"}}')
    })
    const refused = await call(injector.url, { headers: { 'x-api-key': injector.placeholder }, chunks: [Buffer.from('{}')] })
    expect(refused.status).toBe(401)

    const logs: string[] = []
    const dead = await startKeyInjector({ upstream: 'http://127.0.0.1:9', key: KEY, log: line => void logs.push(line), label: 'spawn-dead' })
    open.push(dead)
    const answer = await call(dead.url, { headers: { 'x-api-key': dead.placeholder }, chunks: [Buffer.from('{}')] })
    expect(answer.status).toBe(502)
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/^\[key-injector spawn-dead\] POST \/v1\/messages: the request could not be forwarded to the model API: .*ECONNREFUSED/)
    expect(logs.join('\n')).not.toContain(KEY)
  })

  it('is closed for good, kept-alive connections included; none without a credential', async () => {
    const { injector } = await setUp()
    await call(injector.url, { headers: { 'x-api-key': injector.placeholder, 'connection': 'keep-alive' }, chunks: [Buffer.from('{}')] })
    await injector.close()
    await expect(call(injector.url, { headers: { 'x-api-key': injector.placeholder } })).rejects.toThrow(/ECONNREFUSED/)
    // Closing twice is harmless (the finally of a spawn that was also aborted).
    await injector.close()

    expect(await startSpawnKeyInjector({ ANTHROPIC_API_KEY: '' }, 'ANTHROPIC_API_KEY', () => {}, 'none')).toBeNull()
    const made = await startSpawnKeyInjector({ ANTHROPIC_AUTH_TOKEN: KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }, 'ANTHROPIC_AUTH_TOKEN', () => {}, 'token')
    open.push(made!)
    expect(made!.placeholder).toMatch(/^sk-ant-placeholder-[0-9a-f]{36}$/)
    expect(made!.placeholder).not.toContain(KEY)
  })
})
