// Serves one PGlite instance to many postgres.js connections on a loopback port.
//
// PGlite has ONE backend session for everyone, so this multiplexer is what makes it behave
// like a server with one session per connection:
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
  CANCEL_REQUEST, GSSENC_REQUEST, PROTOCOL_3, SSL_REQUEST, completeMessageLength, errorResponse, md5PasswordRequest,
  mayChangeSession, namespaceNames, passwordMatches, queryText, readyForQuery, startupParameters, statementText, textRows,
} from './embedded-wire'

interface Pending {
  handlerId: number
  message?: Uint8Array
  /** The type of the message's last protocol message (a batch ends with its Sync, or mid-sequence). */
  lastType?: number
  /** May leave state in the session (see mayChangeSession): the next connection gets a reset one. */
  changesSession?: boolean
  /** Work run by the multiplexer itself in this connection's turn (not PGlite protocol). */
  run?: () => Promise<void>
  onData: (data: Uint8Array) => void
  resolve: (bytes: number) => void
  reject: (error: unknown) => void
}

const SYNC = 0x53
const SIMPLE_QUERY = 0x51
const TERMINATE = 0x58
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4])
/** DISCARD ALL but DEALLOCATE ALL of protocol statements (names are per connection) and the advisory-lock release. */
const RESET_SESSION = 'CLOSE ALL; RESET SESSION AUTHORIZATION; RESET ALL; UNLISTEN *; DISCARD TEMP; DISCARD SEQUENCES; '
  // SQL-level PREPARE has no per-connection name: those are dropped too.
  + 'DO $$DECLARE s text; BEGIN FOR s IN SELECT name FROM pg_prepared_statements WHERE from_sql LOOP EXECUTE format(\'DEALLOCATE %I\', s); END LOOP; END$$'
/** The one command the multiplexer answers itself: a pg_dump of the database (see scripts/db-backup.ts). */
export const DUMP_COMMAND = 'SYNEDRE DUMP'
export const DEFAULT_IDLE_TX_TIMEOUT_MS = 5000

/** The multiplexer's own clean-up may fail (the backend in a state it did not expect): said, not fatal. */
const logged = (what: string) => (error: unknown) => {
  console.error(`[synedre] embedded database: ${what} failed: ${(error as Error).message}`)
}

/** A simple-protocol Query message. */
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
  /** The connection whose messages ran last: another one gets a reset session first… */
  private lastHandler: number | null = null
  /** …when what ran since the last reset may have left state in the session. */
  private sessionChanged = true
  private idleTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: PGlite,
    private readonly idleTransactionTimeoutMs = DEFAULT_IDLE_TX_TIMEOUT_MS,
    private readonly onIdleTimeout: (handlerId: number) => void = () => {},
  ) {}

  enqueue(
    handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void,
    { changesSession = true, lastType = message[0] }: { changesSession?: boolean, lastType?: number } = {},
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, lastType, changesSession, onData, resolve, reject })
      void this.process()
    })
  }

  /** Runs work in handlerId's turn, with the backend to itself (no PGlite lock held). */
  runInTurn(handlerId: number, run: () => Promise<void>): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, run, onData: () => {}, resolve, reject })
      void this.process()
    })
  }

  getQueueLength(): number {
    return this.queue.length
  }

  ownsBackend(handlerId: number): boolean {
    return this.owner === handlerId
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((item) => {
      if (item.handlerId !== handlerId) return true
      item.reject(new Error('connection closed'))
      return false
    })
  }

  /** A connection went away: end its sequence, roll back its transaction, drop its statements. */
  async release(handlerId: number, statements: Iterable<string> = []): Promise<void> {
    if (this.owner === handlerId) await this.endTurn()
    const names = [...statements]
    if (names.length) {
      // In its own turn, so never inside another connection's transaction.
      await this.runInTurn(handlerId, () => this.db.runExclusive(async () => {
        await this.discard(simpleQuery(names.map(name => `DEALLOCATE "${name.replaceAll('"', '""')}"`).join('; ')))
          .catch(logged(`dropping the statements of closed connection ${handlerId}`))
      })).catch(logged(`waiting for the turn of closed connection ${handlerId}`))
    }
  }

  private async endTurn(): Promise<void> {
    this.clearIdleTimer()
    await this.db.runExclusive(async () => {
      if (this.midSequence) await this.discard(SYNC_MESSAGE).catch(logged('ending an unfinished sequence'))
      if (this.db.isInTransaction()) await this.discard(simpleQuery('ROLLBACK')).catch(logged('rolling back a released transaction'))
    })
    this.owner = null
    this.midSequence = false
    void this.process()
  }

  /**
   * Runs a message of the multiplexer's own and drops its answer. Through the stream API:
   * PGlite's execProtocolRaw leaves its output to be delivered with the next message's.
   */
  private async discard(message: Uint8Array): Promise<void> {
    await this.db.execProtocolRawStream(message, { onRawData: () => {} })
  }

  private next(): Pending | undefined {
    if (this.owner === null) return this.queue.shift()
    const index = this.queue.findIndex(item => item.handlerId === this.owner)
    return index === -1 ? undefined : this.queue.splice(index, 1)[0]
  }

  private clearIdleTimer(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }

  private armIdleTimer(): void {
    if (this.idleTimer || this.owner === null) return
    const owner = this.owner
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined
      if (this.owner !== owner || this.processing) return
      this.clearQueueForHandler(owner)
      void this.endTurn().then(() => this.onIdleTimeout(owner))
    }, this.idleTransactionTimeoutMs)
    this.idleTimer.unref()
  }

  private async process(): Promise<void> {
    if (this.processing) return
    this.processing = true
    try {
      for (let item = this.next(); item; item = this.next()) {
        this.clearIdleTimer()
        if (this.sessionChanged && this.lastHandler !== null && this.lastHandler !== item.handlerId && this.owner === null) {
          await this.db.runExclusive(() => this.discard(simpleQuery(RESET_SESSION))).catch(logged('resetting the session between two connections'))
          this.sessionChanged = false
        }
        this.lastHandler = item.handlerId
        if (item.run || item.changesSession) this.sessionChanged = true
        if (item.run) {
          try {
            await item.run()
            item.resolve(0)
          }
          catch (error) {
            item.reject(error)
          }
          continue
        }
        const type = item.lastType ?? item.message![0]
        let bytes = 0
        try {
          await this.db.runExclusive(() => this.db.execProtocolRawStream(item!.message!, {
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
      this.armIdleTimer()
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
