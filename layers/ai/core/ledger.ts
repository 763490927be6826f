// The consumption ledger (ai_consumption): one row per attempt. Rows are queued and written
// in the background, in batches; a write that fails is logged and dropped — the ledger never
// blocks or fails a model call. The cost is estimated in the INSERT itself from ai_prices
// (exact model, then the requested model, then the longest model prefix, then the
// provider's '*' row), unless the provider reported one; the same price row decides the
// seed's bucket (an included model, or the offline provider: 'allowance', else 'premium').
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { AiCallKind, AiOutcome } from '#db/schema/ai'
import type { Via } from './catalog'

export interface LedgerEntry {
  callId: string
  at: Date
  kind: AiCallKind
  provider: string
  via: Via
  model: string
  modelRequested: string
  feature: string
  tenant: string | null
  actor: string | null
  /** The agent (codename) whose run made the call, when one did (budgets per agent read it). */
  agent?: string | null
  attempt: number
  outcome: AiOutcome
  error: string | null
  httpStatus: number | null
  tokensIn: number
  tokensOut: number
  /** A cost the provider reported itself (USD); otherwise the price table decides. */
  reportedCostUsd: number | null
  durationMs: number
  failoverChain: string[]
}

export interface LedgerSink {
  record: (entry: LedgerEntry) => void
  /** Resolves when every queued row has been written (or dropped). */
  flush: () => Promise<void>
}

export const noopLedger: LedgerSink = { record: () => {}, flush: async () => {} }

export function createMemoryLedger(): LedgerSink & { entries: LedgerEntry[] } {
  const entries: LedgerEntry[] = []
  return { entries, record: entry => void entries.push(entry), flush: async () => {} }
}

/** Writes ledger rows now, pricing them from ai_prices in the same statement. */
export async function insertLedgerRows(db: Db, entries: LedgerEntry[]): Promise<void> {
  if (entries.length === 0) return
  const payload = JSON.stringify(entries.map(entry => ({
    call_id: entry.callId,
    at: entry.at.toISOString(),
    kind: entry.kind,
    provider: entry.provider,
    via: entry.via,
    model: entry.model,
    model_requested: entry.modelRequested,
    feature: entry.feature,
    tenant: entry.tenant,
    actor: entry.actor,
    agent: entry.agent ?? null,
    attempt: entry.attempt,
    outcome: entry.outcome,
    error: entry.error,
    http_status: entry.httpStatus,
    tokens_in: Math.max(0, Math.round(entry.tokensIn)),
    tokens_out: Math.max(0, Math.round(entry.tokensOut)),
    reported_cost: entry.reportedCostUsd,
    duration_ms: Math.max(0, Math.round(entry.durationMs)),
    failover_chain: entry.failoverChain,
  })))
  await db.execute(sql`
    insert into ai_consumption (call_id, at, kind, provider, via, model, model_requested, feature, tenant, actor, agent, bucket,
      attempt, outcome, error, http_status, tokens_in, tokens_out, cost_usd, cost_source, duration_ms, failover_chain)
    select v.call_id, v.at, v.kind, v.provider, v.via, v.model, v.model_requested, v.feature, v.tenant, v.actor, v.agent,
      case when v.provider = 'offline' or coalesce(p.included, false) then 'allowance' else 'premium' end,
      v.attempt, v.outcome, v.error, v.http_status, v.tokens_in, v.tokens_out,
      coalesce(v.reported_cost, p.cost, 0),
      case when v.reported_cost is not null then 'reported' when p.cost is not null then 'price_table' else 'none' end,
      v.duration_ms, v.failover_chain
    from jsonb_to_recordset(${payload}::jsonb) as v(
      call_id uuid, at timestamptz, kind text, provider text, via text, model text, model_requested text,
      feature text, tenant text, actor text, agent text, attempt int, outcome text, error text, http_status int,
      tokens_in int, tokens_out int, reported_cost numeric, duration_ms int, failover_chain text[])
    left join lateral (
      select (v.tokens_in * pr.input_usd_per_mtok + v.tokens_out * pr.output_usd_per_mtok) / 1000000 as cost, pr.included
      from ai_prices pr
      where pr.provider = v.provider
        and (pr.model = v.model or pr.model = v.model_requested or pr.model = '*' or starts_with(v.model, pr.model))
      order by (pr.model = v.model) desc, (pr.model = v.model_requested) desc, (pr.model = '*') asc, length(pr.model) desc
      limit 1
    ) p on true`)
}

/** For other layers (the spawn engine's result events): one row, written now. */
export async function recordConsumption(db: Db, entry: LedgerEntry): Promise<void> {
  await insertLedgerRows(db, [entry])
}

/**
 * The least time between two ledger writes: calls in a burst share one INSERT. One write
 * per call cost a sequential caller about 60 µs on a quiet machine and over 1 ms on a
 * loaded one (the server's CPU, shared with the caller's); a lone call is still written
 * at once.
 */
export const LEDGER_WRITE_GAP_MS = 25

export interface DbLedgerOptions {
  log?: (line: string) => void
  /** Rows kept waiting at most; beyond, the oldest are dropped (and counted in the log). */
  maxQueue?: number
  batchSize?: number
  /** See LEDGER_WRITE_GAP_MS. */
  writeGapMs?: number
  now?: () => number
}

export function createDbLedger(getDb: () => Promise<Db>, options: DbLedgerOptions = {}): LedgerSink {
  const maxQueue = options.maxQueue ?? 10_000
  const batchSize = options.batchSize ?? 200
  const writeGapMs = options.writeGapMs ?? LEDGER_WRITE_GAP_MS
  const now = options.now ?? Date.now
  const queue: LedgerEntry[] = []
  let draining: Promise<void> | null = null
  let dropped = 0
  let lastWriteAt = Number.NEGATIVE_INFINITY
  /** Ends the wait before a write (flush does not wait for the gap). */
  let wake: (() => void) | null = null

  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.splice(0, batchSize)
      try {
        await insertLedgerRows(await getDb(), batch)
      }
      catch (error) {
        options.log?.(`[ai] ledger: ${batch.length} row(s) not written: ${(error as Error).message}`)
      }
    }
    if (dropped > 0) {
      options.log?.(`[ai] ledger: ${dropped} row(s) dropped, the queue was full`)
      dropped = 0
    }
  }
  const start = () => {
    draining ??= (async () => {
      // Let the caller's own work go first: the ledger is never on the call's path.
      const wait = lastWriteAt + writeGapMs - now()
      await new Promise<void>((resolve) => {
        if (wait <= 0) return void setImmediate(resolve)
        const timer = setTimeout(resolve, wait)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = null
      lastWriteAt = now()
      await drain()
    })().finally(() => {
      draining = null
      if (queue.length > 0) start()
    })
  }
  return {
    record(entry) {
      queue.push(entry)
      if (queue.length > maxQueue) dropped += queue.splice(0, queue.length - maxQueue).length
      start()
    },
    async flush() {
      while (draining || queue.length > 0) {
        if (!draining) start()
        wake?.()
        await draining
      }
    },
  }
}
