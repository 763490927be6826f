// The turn-taking in front of PGlite's ONE backend session (see db/embedded-socket.ts): a
// connection keeps the backend from its first extended-protocol message to its Sync and for
// the whole of an explicit transaction; the session is reset when the backend passes to
// another connection after statements that may have left state in it; a connection holding
// the backend idle for too long is rolled back.
import type { PGlite } from '@electric-sql/pglite'
import { SESSION_SETTINGS_SQL } from './session-settings'

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

export const SYNC = 0x53
export const SIMPLE_QUERY = 0x51
export const TERMINATE = 0x58
export const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4])
/**
 * DISCARD ALL but DEALLOCATE ALL of protocol statements (names are per connection) and the advisory-lock release; then the sessions' own
 * settings.
 */
const RESET_SESSION = `CLOSE ALL; RESET SESSION AUTHORIZATION; RESET ALL; ${SESSION_SETTINGS_SQL}UNLISTEN *; DISCARD TEMP; DISCARD SEQUENCES; `
  // SQL-level PREPARE has no per-connection name: those are dropped too.
  + 'DO $$DECLARE s text; BEGIN FOR s IN SELECT name FROM pg_prepared_statements WHERE from_sql LOOP EXECUTE format(\'DEALLOCATE %I\', s); END LOOP; END$$'
/** The one command the multiplexer answers itself: a pg_dump of the database (see scripts/db-backup.ts). */
export const DUMP_COMMAND = 'SYNEDRE DUMP'
export const DEFAULT_IDLE_TX_TIMEOUT_MS = 5000

/** The multiplexer's own clean-up may fail (the backend in a state it did not expect): said, not fatal. */
export const logged = (what: string) => (error: unknown) => {
  console.error(`[synedre] embedded database: ${what} failed: ${(error as Error).message}`)
}

/** A simple-protocol Query message. */
export function simpleQuery(text: string): Uint8Array {
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
