// Serves one PGlite instance to many postgres.js connections on a loopback port.
//
// PGlite has ONE backend session for everyone, so this multiplexer is what makes it behave
// like a server with one session per connection (turns, isolation and idle transactions are
// the queue's, db/embedded-queue.ts; start-up, password, names and batching are here):
// - turns: a connection keeps the backend from its first extended-protocol message to its
//   Sync, and for the whole of an explicit transaction (messages of different connections
//   interleaved corrupt each other's unnamed statement);
// - isolation: when the backend passes from one connection to another after statements that
//   may have left state in the session, it is reset (settings, role, temporary tables,
//   cursors, LISTEN, sequences' currval); plain reads skip the reset, which costs as much as
//   they do. Each connection's prepared statements and portals carry its own name prefix;
// - one write per sequence: the answers to a connection's messages up to their Sync leave
//   in one socket write;
// - idle transactions: a connection holding the backend without sending anything for
//   idleTransactionTimeoutMs is rolled back and disconnected, so it cannot stall the hub;
// - a password (MD5 exchange), since the port is reachable by every local user.
import { createServer, type Server, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import type { PGlite } from '@electric-sql/pglite'
import {
  DEFAULT_IDLE_TX_TIMEOUT_MS, DUMP_COMMAND, ProtocolQueue, SIMPLE_QUERY, SYNC, SYNC_MESSAGE, TERMINATE, logged, simpleQuery,
} from './embedded-queue'
import {
  CANCEL_REQUEST, GSSENC_REQUEST, PROTOCOL_3, SSL_REQUEST, completeMessageLength, errorResponse, md5PasswordRequest,
  mayChangeSession, namespaceNames, passwordMatches, queryText, readyForQuery, startupParameters, statementText, textRows,
} from './embedded-wire'
import { SESSION_SETTINGS_SQL } from './session-settings'

export { DEFAULT_IDLE_TX_TIMEOUT_MS, DUMP_COMMAND }

export interface EmbeddedSocketServer {
  port: number
  stop: () => Promise<void>
}

export interface SocketOptions {
  host: string
  port: number
  maxConnections: number
  /** Required of every client (MD5 exchange); none: PGlite's own trust, for tests of other databases. */
  password?: string
  idleTransactionTimeoutMs?: number
  log?: (line: string) => void
}

let nextHandlerId = 1

/** One client connection: start-up and password, then its messages through the queue in order. */
class Connection {
  readonly id = nextHandlerId++
  readonly address: string
  private buffer: Buffer = Buffer.alloc(0)
  private state: 'startup' | 'password' | 'ready' | 'closed' = 'startup'
  private pumping = false
  private startup: Buffer | undefined
  private user = ''
  private readonly salt = randomBytes(4)
  /** This connection's prepared statements (namespaced name → its Parse message), replayed after a dump. */
  readonly statements = new Map<string, Buffer>()

  constructor(
    private readonly socket: Socket,
    private readonly queue: ProtocolQueue,
    private readonly db: PGlite,
    private readonly options: SocketOptions,
    private readonly onClose: (connection: Connection) => void,
    private readonly allStatements: () => Buffer[] = () => [],
  ) {
    this.address = `${socket.remoteAddress ?? 'unknown'}:${socket.remotePort ?? 0}`
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk
      void this.pump()
    })
    socket.on('error', () => this.close())
    socket.on('close', () => this.close())
  }

  close(): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.socket.destroy()
    this.queue.clearQueueForHandler(this.id)
    void this.queue.release(this.id, this.statements.keys()).finally(() => this.onClose(this))
  }

  private write(data: Uint8Array): void {
    if (data.length && this.socket.writable) this.socket.write(data)
  }

  /**
   * PGlite's answer, copied: its bytes are a view PGlite reuses for its next answer, and a
   * corked or busy socket keeps what it is given until it sends it. A large answer leaves
   * in pieces rather than all held until the end of the sequence.
   */
  private relay(data: Uint8Array): void {
    this.write(Buffer.from(data))
    if (this.socket.writableCorked && this.socket.writableLength >= 1 << 16) {
      this.socket.uncork()
      this.socket.cork()
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.state !== 'closed') {
        const startup = this.state === 'startup'
        const length = completeMessageLength(this.buffer, startup)
        if (!length) break
        if (this.state !== 'ready') await this.signIn(this.take(length), startup)
        else if (this.buffer[0] === TERMINATE) this.close()
        else if (this.buffer[0] === SIMPLE_QUERY) await this.query(this.take(length))
        else await this.send(this.takeSequence())
      }
    }
    catch (error) {
      if (this.state !== 'closed') this.options.log?.(`embedded database: connection from ${this.address} failed: ${(error as Error).message}`)
      this.close()
    }
    finally {
      this.pumping = false
    }
  }

  private take(length: number): Buffer {
    const message = this.buffer.subarray(0, length)
    this.buffer = this.buffer.subarray(length)
    return message
  }

  /** The complete extended-protocol messages at the head of the buffer, up to and with their Sync. */
  private takeSequence(): Buffer[] {
    const messages: Buffer[] = []
    for (let length = completeMessageLength(this.buffer, false); length; length = completeMessageLength(this.buffer, false)) {
      const type = this.buffer[0]
      if (type === SIMPLE_QUERY || type === TERMINATE) break
      messages.push(this.take(length))
      if (type === SYNC) break
    }
    return messages
  }

  private async signIn(message: Buffer, startup: boolean): Promise<void> {
    if (startup) {
      const code = message.readInt32BE(4)
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) return this.write(Buffer.from('N'))
      if (code === CANCEL_REQUEST || code !== PROTOCOL_3) return this.close()
      this.startup = Buffer.from(message)
      this.user = startupParameters(message).user ?? ''
      if (this.options.password === undefined) return await this.ready()
      this.state = 'password'
      return this.write(md5PasswordRequest(this.salt))
    }
    if (message[0] === 0x70 && passwordMatches(message, this.user, this.options.password!, this.salt)) return await this.ready()
    this.options.log?.(`embedded database: refused a connection from ${this.address} (wrong password for user "${this.user}")`)
    this.write(errorResponse('FATAL', '28P01', `password authentication failed for user "${this.user}"`))
    this.close()
  }

  private async query(message: Buffer): Promise<void> {
    if (queryText(message).trim().toUpperCase() === DUMP_COMMAND) return await this.dump()
    await this.send([message])
  }

  /**
   * A sequence's messages, their names namespaced, to PGlite in ONE call (a call costs as
   * much as a short query: Bind, Describe, Execute and Sync one call each made a read four
   * times dearer), the answers in one socket write. PGlite answers a batch as PostgreSQL
   * does: an error skips the rest up to the Sync and is followed by ReadyForQuery (checked in
   * tests/integration/embedded-socket.test.ts). A batch stops at its Sync, so an error never
   * costs another sequence its answers.
   */
  private async send(messages: Buffer[]): Promise<void> {
    if (messages.length === 0) return
    let changesSession = false
    const named = messages.map((message) => {
      const sql = statementText(message)
      if (sql !== null && mayChangeSession(sql)) changesSession = true
      const seen: { parsed?: string, closed?: string } = {}
      const renamed = namespaceNames(message, `sy${this.id}_`, seen)
      if (seen.parsed) this.statements.set(seen.parsed, Buffer.from(renamed))
      if (seen.closed) this.statements.delete(seen.closed)
      return renamed
    })
    const batch = named.length === 1 ? named[0]! : Buffer.concat(named)
    this.socket.cork()
    try {
      await this.queue.enqueue(this.id, batch, data => this.relay(data), { changesSession, lastType: messages.at(-1)![0] })
    }
    finally {
      this.socket.uncork()
    }
  }

  private async ready(): Promise<void> {
    this.state = 'ready'
    await this.queue.enqueue(this.id, this.startup!, data => this.relay(data))
  }

  /** pg_dump inside this process (it needs the PGlite instance), in this connection's turn. */
  private async dump(): Promise<void> {
    if (this.queue.ownsBackend(this.id)) {
      this.write(errorResponse('ERROR', '25001', `${DUMP_COMMAND} cannot run inside a transaction`))
      return this.write(readyForQuery('T'))
    }
    await this.queue.runInTurn(this.id, async () => {
      const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump')
      try {
        let file: File
        try {
          file = await pgDump({ pg: this.db, args: ['--rows-per-insert=500'] })
        }
        finally {
          // pg_dump opens its own session inside PGlite, which drops every prepared
          // statement: the connections' own are prepared again (each with its Sync, so
          // one that survived and answers "already exists" does not stop the others).
          await this.db.runExclusive(async () => {
            // Its session ends without a COMMIT: its read-only snapshot transaction is still open.
            if (this.db.isInTransaction()) await this.db.execProtocolRawStream(simpleQuery('ROLLBACK'), { onRawData: () => {} }).catch(logged('ending the dump\'s snapshot'))
            // One that survived answers "already exists" inside PGlite's answer, not as a throw.
            for (const parse of this.allStatements()) {
              await this.db.execProtocolRawStream(parse, { onRawData: () => {} }).catch(logged('preparing a statement again after a dump'))
              await this.db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: () => {} }).catch(logged('preparing a statement again after a dump'))
            }
            // Its session's end may have reset the backend's settings too.
            await this.db.execProtocolRawStream(simpleQuery(SESSION_SETTINGS_SQL), { onRawData: () => {} }).catch(logged('setting the sessions\' settings again after a dump'))
          })
        }
        const text = await file.text()
        const chunks: string[] = []
        for (let at = 0; at < text.length; at += 1 << 20) chunks.push(text.slice(at, at + (1 << 20)))
        this.write(textRows('dump', chunks))
      }
      catch (error) {
        this.options.log?.(`embedded database: the dump asked by ${this.address} failed: ${(error as Error).message}`)
        this.write(errorResponse('ERROR', 'XX000', `pg_dump failed: ${(error as Error).message}`))
        this.write(readyForQuery())
      }
    })
  }
}

export async function serveOverSocket(db: PGlite, options: SocketOptions): Promise<EmbeddedSocketServer> {
  const connections = new Map<number, Connection>()
  const timeoutMs = options.idleTransactionTimeoutMs ?? DEFAULT_IDLE_TX_TIMEOUT_MS
  const queue = new ProtocolQueue(db, timeoutMs, (handlerId) => {
    const connection = connections.get(handlerId)
    options.log?.(`embedded database: rolled back the transaction of ${connection?.address ?? `connection ${handlerId}`}, idle for ${timeoutMs} ms while holding the database, and disconnected it`)
    connection?.close()
  })
  const server: Server = createServer((socket) => {
    if (connections.size >= options.maxConnections) {
      socket.destroy()
      return
    }
    const connection = new Connection(socket, queue, db, options, closed => connections.delete(closed.id),
      () => [...connections.values()].flatMap(open => [...open.statements.values()]))
    connections.set(connection.id, connection)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const address = server.address()
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    stop: async () => {
      const closing = new Promise<void>(resolve => server.close(() => resolve()))
      for (const connection of connections.values()) connection.close()
      await closing
    },
  }
}
