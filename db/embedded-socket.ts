// Serves one PGlite instance to many postgres.js connections on a loopback port.
//
// pglite-socket's own queue interleaves the messages of different connections one by one,
// so two clients using the extended protocol (Parse/Bind/Execute/Sync, which postgres.js
// always uses) corrupt each other's unnamed statement ("bind message supplies 2
// parameters, but prepared statement requires 5"), and a failed message stalls its queue
// for good. This queue keeps a connection's turn from its first extended-protocol message
// to its Sync, and for the whole of an explicit transaction, and never stalls.
import { createServer, type Server, type Socket } from 'node:net'
import type { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket'

type Handler = PGLiteSocketHandler

interface Pending {
  handlerId: number
  message: Uint8Array
  onData: (data: Uint8Array) => void
  resolve: (bytes: number) => void
  reject: (error: unknown) => void
}

const SYNC = 0x53
const SIMPLE_QUERY = 0x51
const TERMINATE = 0x58
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4])

/** A simple-protocol Query message. PGlite's exec() takes the lock runExclusive already holds. */
function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8')
  const message = Buffer.alloc(5 + body.length)
  message[0] = SIMPLE_QUERY
  message.writeInt32BE(4 + body.length, 1)
  body.copy(message, 5)
  return new Uint8Array(message)
}

export class ProtocolQueue {
  private queue: Pending[] = []
  private processing = false
  /** The connection whose turn it is (mid extended-protocol sequence or transaction). */
  private owner: number | null = null
  private midSequence = false

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject })
      void this.process()
    })
  }

  getQueueLength(): number {
    return this.queue.length
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((item) => {
      if (item.handlerId !== handlerId) return true
      item.reject(new Error('connection closed'))
      return false
    })
  }

  /** A connection went away: end its sequence and roll back its transaction, then go on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return
    await this.db.runExclusive(async () => {
      if (this.midSequence) await this.db.execProtocolRaw(SYNC_MESSAGE).catch(() => {})
      if (this.db.isInTransaction()) await this.db.execProtocolRaw(simpleQuery('ROLLBACK')).catch(() => {})
    })
    this.owner = null
    this.midSequence = false
    void this.process()
  }

  private next(): Pending | undefined {
    if (this.owner === null) return this.queue.shift()
    const index = this.queue.findIndex(item => item.handlerId === this.owner)
    return index === -1 ? undefined : this.queue.splice(index, 1)[0]
  }

  private async process(): Promise<void> {
    if (this.processing) return
    this.processing = true
    try {
      for (let item = this.next(); item; item = this.next()) {
        const type = item.message[0]
        let bytes = 0
        try {
          await this.db.runExclusive(() => this.db.execProtocolRawStream(item!.message, {
            onRawData: (data) => {
              bytes += data.length
              item!.onData(data)
            },
          }))
          item.resolve(bytes)
        }
        catch (error) {
          item.reject(error)
        }
        // A startup message begins with its length (first byte 0); extended-protocol
        // messages run until Sync; a simple Query is complete on its own.
        this.midSequence = type !== 0 && type !== SYNC && type !== SIMPLE_QUERY && type !== TERMINATE
        this.owner = this.midSequence || this.db.isInTransaction() ? item.handlerId : null
      }
    }
    finally {
      this.processing = false
    }
  }
}

export interface EmbeddedSocketServer {
  port: number
  stop: () => Promise<void>
}

export async function serveOverSocket(db: PGlite, options: { host: string, port: number, maxConnections: number }): Promise<EmbeddedSocketServer> {
  const queue = new ProtocolQueue(db)
  const handlers = new Set<Handler>()
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    if (handlers.size >= options.maxConnections) {
      socket.destroy()
      return
    }
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    // The handler only calls enqueue / clearQueueForHandler / clearTransactionIfNeeded.
    const handler = new PGLiteSocketHandler({ queryQueue: queue as unknown as ConstructorParameters<typeof PGLiteSocketHandler>[0]['queryQueue'], closeOnDetach: true })
    handlers.add(handler)
    handler.addEventListener('close', () => handlers.delete(handler))
    handler.addEventListener('error', () => handlers.delete(handler))
    void handler.attach(socket)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const address = server.address()
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    stop: async () => {
      await Promise.all([...handlers].map(handler => handler.detach(true)))
      for (const socket of sockets) socket.destroy()
      await new Promise<void>(resolve => server.close(() => resolve()))
    },
  }
}
