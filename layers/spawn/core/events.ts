// Live persistence of a spawn's events: each JSONL line of the wrapper becomes a row of the
// event log (through the updatable view atlas_spawn_events) as it arrives, in small batches;
// the spawn row carries the last event and its time, so a hung spawn shows where it stopped.
// `add` resolves once the event is safe to forget: a full batch waits for its INSERT, which
// slows the reader, hence the wrapper, hence the agent (backpressure, never a growing buffer).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { createEventClassifier, type StreamEvent } from './stream'

/** A payload above this (JSON characters) is stored as a truncated preview. */
export const MAX_PAYLOAD_CHARS = 256 * 1024

export interface EventSinkOptions {
  batchSize?: number
  /** A partial batch is written after this long. */
  flushMs?: number
  /** How long a failed batch is retried before it is given up as lost (default 60 s). */
  retryForMs?: number
  log?: (line: string) => void
}

export interface EventSink {
  add: (event: StreamEvent) => Promise<void>
  /** Writes what is pending and stops the timer. */
  close: () => Promise<void>
  count: () => number
  lastEvent: () => StreamEvent | null
}

interface Row {
  seq: number
  event_type: string
  subtype: string
  tool_name: string | null
  payload: unknown
}

// PostgreSQL's jsonb refuses NUL and lone surrogates in strings: they become U+FFFD.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g')
function storable(_key: string, value: unknown): unknown {
  return typeof value === 'string' && UNSTORABLE.test(value) ? value.replace(UNSTORABLE_ALL, '\uFFFD') : value
}

// The database going away (a restart, a cut connection) rather than refusing the statement:
// SQLSTATE classes 08 (connection) and 57P (operator intervention), the socket's errors, and
// postgres.js's own codes for a connection closed under a query.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'])

/** Is this a connection lost (worth retrying once the database is back), not a refused statement? */
export function isConnectionError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = String((current as { code?: unknown }).code ?? '')
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return true
  }
  return false
}

/** A failed query's reason: the driver's error under drizzle's wrapper (which repeats the whole statement). */
export function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error ? cause.message : (error as Error).message
}

export function toStorableJson(value: unknown): string {
  return JSON.stringify(value, storable)
}

function storedPayload(event: StreamEvent): unknown {
  const text = JSON.stringify(event)
  if (text.length <= MAX_PAYLOAD_CHARS) return event
  return { type: event.type, truncated: true, chars: text.length, head: text.slice(0, 64 * 1024) }
}

export function createEventSink(db: Db, spawn: { spawnId: string, messageId: number }, options: EventSinkOptions = {}): EventSink {
  const batchSize = options.batchSize ?? 200
  const flushMs = options.flushMs ?? 250
  const retryForMs = options.retryForMs ?? 60_000
  const classify = createEventClassifier()
  let pending: Row[] = []
  let seq = 0
  let last: StreamEvent | null = null
  let writing: Promise<void> = Promise.resolve()
  let timer: NodeJS.Timeout | null = null
  let failure: Error | null = null

  // A batch that fails because the connection was lost (the database restarting) is tried
  // again until `retryForMs` has passed: the agent's events must outlive a short outage. Rows already
  // stored (the reply of a committed insert lost) are skipped, so a retry never duplicates.
  const write = async (rows: Row[]) => {
    if (rows.length === 0) return
    const lastRow = rows[rows.length - 1]!
    const firstTry = Date.now()
    for (let attempt = 1; ; attempt++) {
      try {
        await db.execute(sql`
          insert into atlas_spawn_events (spawn_id, message_id, seq, event_type, subtype, tool_name, payload)
          select ${spawn.spawnId}::uuid, ${spawn.messageId}::bigint, r.seq, r.event_type, r.subtype, r.tool_name, r.payload
          from jsonb_to_recordset(${toStorableJson(rows)}::jsonb) as r(seq int, event_type text, subtype text, tool_name text, payload jsonb)
          where not exists (select 1 from atlas_spawn_events e where e.spawn_id = ${spawn.spawnId}::uuid and e.seq = r.seq)`)
        await db.execute(sql`
          update atlas_spawns set last_event_at = now(), last_event_type = ${lastRow.subtype}, event_count = greatest(event_count, ${lastRow.seq})
          where id = ${spawn.spawnId}::uuid`)
        if (attempt > 1) options.log?.(`[spawn ${spawn.spawnId}] ${rows.length} event(s) stored at attempt ${attempt}, after ${Date.now() - firstTry} ms`)
        return
      }
      catch (error) {
        if (!isConnectionError(error) || Date.now() - firstTry >= retryForMs) {
          failure = error as Error
          options.log?.(`[spawn ${spawn.spawnId}] ${rows.length} event(s) not stored after ${attempt} attempt(s): ${reasonOf(error)}`)
          return
        }
        if (attempt === 1) options.log?.(`[spawn ${spawn.spawnId}] ${rows.length} event(s) not stored yet (${reasonOf(error)}); retrying`)
        await new Promise(resolve => setTimeout(resolve, Math.min(2000, 100 * 2 ** (attempt - 1))))
      }
    }
  }

  const flush = () => {
    if (timer) {
      clearTimeout(timer)
      timer = null
    }
    const rows = pending
    pending = []
    writing = writing.then(() => write(rows))
    return writing
  }

  return {
    async add(event) {
      seq += 1
      last = event
      const kind = classify(event)
      pending.push({ seq, event_type: kind.kind, subtype: kind.subtype, tool_name: kind.toolName, payload: storedPayload(event) })
      if (pending.length >= batchSize) {
        await flush()
        return
      }
      timer ??= setTimeout(() => void flush(), flushMs)
    },
    async close() {
      await flush()
      if (failure) options.log?.(`[spawn ${spawn.spawnId}] the event log is incomplete (last error: ${(failure as Error).message})`)
    },
    count: () => seq,
    lastEvent: () => last,
  }
}
