// The key injector: the one place the model credential leaves the worker. A loopback HTTP
// forwarder per spawn, outside the sandbox; the agent is given its address as
// ANTHROPIC_BASE_URL and a placeholder as its credential. A request carrying the placeholder
// (x-api-key, or Authorization: Bearer) is forwarded to the real model API with the real key
// in that header instead; its body is streamed through byte for byte and never looked at, so
// the key can only ever travel in a header that was written out here (srt's credential
// masking, which it replaces, also substituted the key into request BODIES: a tool result
// holding the sentinel reached the model as the real key). Anything else gets 403, logged,
// never forwarded. Log lines name the method, path and reason, never a header's value.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { pipeline } from 'node:stream'

export interface KeyInjector {
  /** http://127.0.0.1:<port>: the agent's ANTHROPIC_BASE_URL. */
  url: string
  /** 127.0.0.1:<port>, for the sandbox's allowlist. */
  host: string
  /** The agent's credential: worthless anywhere but here, and only while this runs. */
  placeholder: string
  close: () => Promise<void>
}

export interface KeyInjectorInput {
  /** The real model API (https in production; http loopback in tests), with any path prefix. */
  upstream: string
  key: string
  log: (line: string) => void
  /** Names the injector in log lines (the spawn's id). */
  label: string
}

// Headers of one connection, not of the request (RFC 9110 7.6.1), plus the proxy's and the
// credential headers, which are written afresh.
const DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'x-api-key', 'authorization'])

function same(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Where the placeholder was presented: the header the real key goes into. */
export function presentedIn(headers: IncomingHttpHeaders, placeholder: string): 'x-api-key' | 'authorization' | null {
  const apiKey = headers['x-api-key']
  if (typeof apiKey === 'string' && same(apiKey, placeholder)) return 'x-api-key'
  const authorization = headers.authorization
  if (typeof authorization === 'string' && same(authorization, `Bearer ${placeholder}`)) return 'authorization'
  return null
}

/** The request's headers as forwarded: connection headers dropped, the real key in place of the placeholder. */
export function forwardedHeaders(headers: IncomingHttpHeaders, slot: 'x-api-key' | 'authorization', key: string, upstreamHost: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  const listed = new Set(String(headers.connection ?? '').split(',').map(name => name.trim().toLowerCase()).filter(Boolean))
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED.has(name) || listed.has(name)) continue
    out[name] = value
  }
  out.host = upstreamHost
  out[slot] = slot === 'x-api-key' ? key : `Bearer ${key}`
  return out
}

function refuse(response: ServerResponse, status: number, type: string, message: string): void {
  if (response.destroyed) return
  if (response.headersSent) {
    response.destroy()
    return
  }
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ type: 'error', error: { type, message } }))
}

export async function startKeyInjector(input: KeyInjectorInput): Promise<KeyInjector> {
  const upstream = new URL(input.upstream)
  if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:') throw new Error(`the model API must be an http(s) address, got ${upstream.protocol}`)
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest
  const prefix = upstream.pathname.replace(/\/+$/, '')
  const placeholder = `sk-ant-placeholder-${randomBytes(18).toString('hex')}`
  const tag = `[key-injector ${input.label}]`

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    // The agent writes the path: only its beginning goes into a log line.
    const what = `${request.method ?? '?'} ${(request.url ?? '/').split('?')[0]!.slice(0, 200)}`
    const slot = presentedIn(request.headers, placeholder)
    if (!slot) {
      input.log(`${tag} refused ${what}: the request does not carry the spawn's placeholder credential (403, not forwarded)`)
      request.resume()
      return refuse(response, 403, 'permission_error', 'this endpoint forwards only requests carrying the spawn\'s placeholder credential')
    }
    let agentLeft = false
    const outgoing = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port || undefined,
      method: request.method,
      path: `${prefix}${request.url ?? '/'}`,
      headers: forwardedHeaders(request.headers, slot, input.key, upstream.host),
    }, (incoming) => {
      const headers: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined && !DROPPED.has(name)) headers[name] = value
      response.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, headers)
      // Streamed as it comes (server-sent events): no buffering of the answer either.
      pipeline(incoming, response, (error) => {
        if (error && !agentLeft) input.log(`${tag} ${what}: the model API's answer was cut off: ${error.message}`)
      })
    })
    // The body, byte for byte, as it comes: never read, never rewritten.
    pipeline(request, outgoing, (error) => {
      if (!error || agentLeft) return
      input.log(`${tag} ${what}: the request could not be forwarded to the model API: ${error.message}`)
      refuse(response, 502, 'api_error', 'the model API could not be reached')
    })
    // The agent went away (it ended, it was stopped): the upstream request goes too, quietly.
    response.once('close', () => {
      if (response.writableFinished) return
      agentLeft = true
      outgoing.destroy()
    })
  }

  const server = createServer(handle)
  server.on('clientError', (error, socket) => {
    input.log(`${tag} a malformed request was dropped: ${error.message}`)
    socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | null = null
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    placeholder,
    close: () => closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve())
      // Kept-alive and in-flight connections of an agent that is gone end now.
      server.closeAllConnections()
    }),
  }
}

/**
 * The injector for a spawn, when the worker holds the agent's credential (its variable,
 * SPAWN_AGENT_CREDENTIAL, set and not empty); null otherwise (the agent then has no credential).
 */
export async function startSpawnKeyInjector(
  env: Readonly<Record<string, string | undefined>>,
  credentialEnv: string,
  log: (line: string) => void,
  label: string,
): Promise<KeyInjector | null> {
  const key = env[credentialEnv]?.trim()
  if (!key) return null
  return await startKeyInjector({ upstream: env.ANTHROPIC_BASE_URL?.trim() || 'https://api.anthropic.com', key, log, label })
}
