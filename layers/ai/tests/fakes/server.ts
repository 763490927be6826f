// A loopback HTTP server (127.0.0.1, port 0) that records every request and answers from
// a script (queued answers first, then the default responder). Each provider fake below
// is a default responder speaking that provider's real request and error shapes.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
  raw: string
}

export interface FakeAnswer {
  status?: number
  headers?: Record<string, string>
  body?: unknown
  /** Wait this long before answering (timeouts). */
  delayMs?: number
  /** Drop the connection without answering (transport error). */
  destroy?: boolean
  /** Send the headers at once, then stall the body this long (a body-phase timeout). */
  stallBodyMs?: number
}

export type Responder = (request: RecordedRequest) => FakeAnswer

export interface FakeServer {
  url: string
  requests: RecordedRequest[]
  /** Queue answers for the next requests (in order), before the default responder resumes. */
  script: (...answers: FakeAnswer[]) => void
  respond: (responder: Responder) => void
  reset: () => void
  close: () => Promise<void>
}

async function send(res: ServerResponse, answer: FakeAnswer, sockets: Set<Socket>): Promise<void> {
  if (answer.delayMs) await new Promise(resolve => setTimeout(resolve, answer.delayMs))
  if (answer.destroy) {
    res.socket?.destroy()
    return
  }
  const body = answer.body === undefined ? '' : (typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body))
  const contentType = typeof answer.body === 'string' ? 'text/plain' : 'application/json'
  res.writeHead(answer.status ?? 200, { 'content-type': contentType, ...answer.headers })
  if (answer.stallBodyMs) {
    res.write(body.slice(0, 1))
    await new Promise(resolve => setTimeout(resolve, answer.stallBodyMs))
    if (!res.destroyed && sockets.size > 0) res.end(body.slice(1))
    return
  }
  res.end(body)
}

/** `host`: 127.0.0.1 by default; another of this machine's addresses stands in for a remote provider. */
export async function startFakeServer(responder: Responder, host = '127.0.0.1'): Promise<FakeServer> {
  const requests: RecordedRequest[] = []
  const queue: FakeAnswer[] = []
  const sockets = new Set<Socket>()
  let current = responder
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', chunk => chunks.push(chunk as Buffer))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: Record<string, unknown> = {}
      try {
        body = raw ? JSON.parse(raw) as Record<string, unknown> : {}
      }
      catch { /* keep raw */ }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw }
      requests.push(recorded)
      const answer = queue.shift() ?? current(recorded)
      send(res, answer, sockets).catch(() => res.destroy())
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, host, resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    script: (...answers) => void queue.push(...answers),
    respond: (next) => {
      current = next
    },
    reset: () => {
      requests.length = 0
      queue.length = 0
      current = responder
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>(resolve => server.close(() => resolve()))
    },
  }
}
