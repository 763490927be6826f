// The Atlas mailbox collector, one cycle (the atlas-collect automate runs it every minute):
//   1. IMAP, under the mailbox lock and a deadline: UIDVALIDITY tracked; unseen UIDs found;
//      sizes, then sources (headers only for an oversized message) collected first; then
//      for each message: parse, store (message + attachments + tracking row `received`, or
//      `quarantined` with its reason), and only then set \Seen, checking the answer. The
//      sources of earlier messages still to process (a crash, a failed classification
//      retried, a re-classification) are fetched again by UID for their attachments.
//   2. The pipeline for every message to process: antivirus, OCR, classification.
//   3. The cycle's temporary folder (every attachment file) is removed, whatever happened.
// A crash anywhere leaves no duplicate (unique keys) and loses nothing (unseen until stored;
// stored rows in `received` are picked up again by the next cycle).
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { isProcessAlive } from '#db/process'
import type { AiFacade } from '#layers/ai/core/facade'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { recordAtlasAudit } from './audit'
import { verifySender } from './auth/sender'
import type { DNSResolver } from './auth/verify'
import type { AtlasConfig } from './config'
import { withMailbox, type MailboxSession } from './ingest/imap'
import { parseMessage, QuarantineError, type ParsedMessage } from './ingest/parse'
import { storeIncoming, type StoredMessage } from './ingest/store'
import { createOcrEngine, type OcrEngine } from './ocr'
import { pendingInboxRows, runPipeline, type PipelineReport, type WorkItem } from './pipeline'
import { createScanner, type Scanner } from './scan/clamav'
import { collectDropFolder } from './ingest/drop-folder'
import { cycleResolver } from './auth/cycle-resolver'
import { formatBytes } from './text'

export interface CollectDeps {
  db: Db
  ai: Pick<AiFacade, 'complete'>
  config: AtlasConfig
  log: (line: string) => void
  actor?: string
  scanner?: Scanner
  ocr?: () => OcrEngine
  /** Stops the cycle between two messages (SIGTERM, lease lost). */
  signal?: AbortSignal
  /** How the mailbox is opened (the real IMAP session unless a test wraps it). */
  mailbox?: typeof withMailbox
  /** DNS for sender authentication (the system resolver unless a test gives a loopback one). */
  resolver?: DNSResolver
  /** Embeddings for the recall before a work record's creation (none: no recall). */
  embedder?: Embedder
}

export interface CollectReport {
  imap: 'ok' | 'not_configured' | 'failed' | 'skipped'
  imapError?: string
  mailbox?: string
  uidValidity?: number
  uidValidityChanged?: boolean
  unseen: number
  ingested: number
  quarantined: number
  duplicates: number
  seenNotConfirmed: number
  refetched: number
  /** Messages taken from the watched folder (ATLAS_DROP_DIR). */
  dropped: number
  pipeline: Omit<PipelineReport, 'outcomes'>
  /** Where the cycle's time went: the IMAP session (fetch, store, flag) and the pipeline. */
  timings: { imapMs: number, pipelineMs: number }
}

/** The one reading of the test-only pause (ATLAS_COLLECT_PAUSE_AT, parsed in config.ts). */
export function createCheckpoint(pauseAt: AtlasConfig['pauseAt'], log: (line: string) => void): (point: string) => Promise<void> {
  const counts = new Map<string, number>()
  return async (point) => {
    if (!pauseAt || pauseAt.point !== point) return
    const count = (counts.get(point) ?? 0) + 1
    counts.set(point, count)
    if (count !== pauseAt.occurrence) return
    log(`[atlas-collect] paused at ${point}@${count} (ATLAS_COLLECT_PAUSE_AT): waiting to be killed`)
    await new Promise<never>(() => {})
  }
}

const FETCH_BATCH_BYTES = 64 * 1024 * 1024
export const CYCLE_PREFIX = 'atlas-cycle-'

/** Folders of cycles whose process died (killed before its `finally`): removed, they hold mail attachments. */
export function removeDeadCycleFolders(tmpDir: string, log: (line: string) => void): number {
  let removed = 0
  let entries: string[]
  try {
    entries = readdirSync(tmpDir)
  }
  catch {
    return 0
  }
  for (const entry of entries) {
    const pid = Number(new RegExp(`^${CYCLE_PREFIX}(\\d+)-`).exec(entry)?.[1])
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue
    rmSync(join(tmpDir, entry), { recursive: true, force: true })
    removed += 1
  }
  if (removed > 0) log(`[atlas-collect] removed ${removed} attachment folder(s) left by a collector that died mid-cycle`)
  return removed
}

function sha256(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex')
}

/** Parses into `dir`; a quarantine (limits, unparseable) comes back as a reason, never a throw. */
async function parseInto(raw: Buffer, dir: string, config: AtlasConfig, headersOnly = false): Promise<{ parsed: Partial<ParsedMessage>, quarantine?: string }> {
  mkdirSync(dir, { recursive: true })
  try {
    return { parsed: await parseMessage(raw, { limits: config.limits, dir, headersOnly }) }
  }
  catch (error) {
    if (error instanceof QuarantineError) {
      let partial: Partial<ParsedMessage> = error.partial ?? {}
      if (!error.partial) {
        // Keep at least who sent it and what it was about.
        try {
          partial = await parseMessage(headerBlock(raw), { limits: config.limits, dir: join(dir, 'headers'), headersOnly: true }).then(p => ({ ...p, attachments: [] }))
        }
        catch { /* nothing readable at all */ }
      }
      return { parsed: { ...partial, attachments: partial.attachments ?? [] }, quarantine: error.reason }
    }
    throw error
  }
}

/** The header block of a raw message (up to the first empty line). */
function headerBlock(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n')
  const alt = raw.indexOf('\n\n')
  const cut = [end, alt].filter(i => i >= 0).sort((a, b) => a - b)[0]
  const block = cut === undefined ? raw : raw.subarray(0, cut)
  return block.subarray(0, 256 * 1024)
}

function filesOf(parsed: Partial<ParsedMessage>): Map<number, string> {
  return new Map((parsed.attachments ?? []).map(attachment => [attachment.position, attachment.path]))
}

export interface IngestOptions {
  config: AtlasConfig
  actor: string
  /** This message's folder for its attachment files (inside the cycle's folder). */
  dir: string
  mailbox: string
  uidValidity: number | null
  uid: number | null
  /** The size the server announced (the source's length otherwise). */
  size?: number
  /** `source` is the header block of a message too large to download. */
  headersOnly?: boolean
  /** DNS for sender authentication (the system resolver by default). */
  resolver?: DNSResolver
}

/** Parses one source into its folder and stores it; the attachment files come back for the pipeline. */
export async function ingestSource(db: Db, source: Buffer, options: IngestOptions): Promise<{ stored: StoredMessage, files: Map<number, string> | null }> {
  const { config } = options
  const size = options.size ?? source.length
  let parsed: { parsed: Partial<ParsedMessage>, quarantine?: string }
  if (options.headersOnly) {
    const headerOnly = await parseInto(source, options.dir, config, true)
    parsed = { parsed: { ...headerOnly.parsed, attachments: [] }, quarantine: `message of ${formatBytes(size)}, over the ${formatBytes(config.limits.maxMessageBytes)} limit (ATLAS_MAX_MESSAGE_BYTES): not downloaded` }
  }
  else {
    parsed = await parseInto(source, options.dir, config)
  }
  // A message too large to download has no body to check signatures against.
  const senderAuth = options.headersOnly
    ? null
    : await verifySender(db, source, { address: parsed.parsed.fromAddress ?? null, name: parsed.parsed.fromName ?? null }, config, options.resolver)
  const stored = await storeIncoming(db, {
    rawSha256: sha256(source), rawSize: size, mailbox: options.mailbox, uidValidity: options.uidValidity, uid: options.uid,
    parsed: parsed.parsed, quarantine: parsed.quarantine, senderAuth,
  }, options.actor)
  return { stored, files: parsed.quarantine ? null : filesOf(parsed.parsed) }
}

async function trackUidValidity(deps: CollectDeps, session: MailboxSession, actor: string): Promise<boolean> {
  const rows = await deps.db.execute<{ previous: number | null }>(sql`
    with previous as (select uid_validity from atlas_mailbox_state where mailbox = ${session.mailbox})
    insert into atlas_mailbox_state (mailbox, uid_validity, last_uid, last_polled_at)
    values (${session.mailbox}, ${session.uidValidity}, 0, now())
    on conflict (mailbox) do update set
      uid_validity = excluded.uid_validity,
      last_uid = case when atlas_mailbox_state.uid_validity = excluded.uid_validity then atlas_mailbox_state.last_uid else 0 end,
      last_polled_at = now()
    returning (select uid_validity from previous) as previous`)
  const previous = rows[0]?.previous
  const changed = previous !== null && previous !== undefined && Number(previous) !== session.uidValidity
  if (changed) {
    await recordAtlasAudit(deps.db, {
      action: 'uidvalidity_changed', actor,
      details: { mailbox: session.mailbox, previous: Number(previous), current: session.uidValidity, note: 'UIDs of earlier messages no longer designate them; messages are still keyed on their Message-ID' },
    })
    deps.log(`[atlas-collect] UIDVALIDITY of ${session.mailbox} changed from ${previous} to ${session.uidValidity}`)
  }
  return changed
}

type PendingRow = Awaited<ReturnType<typeof pendingInboxRows>>[number]

/** What every stage of one cycle shares: its dependencies, its report and the work it gathers. */
interface Cycle {
  deps: CollectDeps
  actor: string
  checkpoint: (point: string) => Promise<void>
  report: CollectReport
  cycleDir: string
  resolver: DNSResolver
  /** The messages the pipeline will process, by inbox id. */
  items: Map<number, WorkItem>
}

function emptyReport(config: AtlasConfig): CollectReport {
  return {
    imap: config.imap ? 'ok' : 'not_configured', unseen: 0, ingested: 0, quarantined: 0, duplicates: 0, seenNotConfirmed: 0, refetched: 0, dropped: 0,
    pipeline: { classified: 0, blocked: 0, failed: 0, stale: 0, skipped: 0 },
    timings: { imapMs: 0, pipelineMs: 0 },
  }
}

/** Batches bounded in bytes (a message over the limit counts for the limit: only its headers are fetched). */
function fetchBatches(uids: number[], sizes: Map<number, number>, maxMessageBytes: number): number[][] {
  let batch: number[] = []
  let batchBytes = 0
  const batches: number[][] = []
  for (const uid of uids) {
    const size = sizes.get(uid) ?? 0
    if (batch.length > 0 && batchBytes + Math.min(size, maxMessageBytes) > FETCH_BATCH_BYTES) {
      batches.push(batch)
      batch = []
      batchBytes = 0
    }
    batch.push(uid)
    batchBytes += Math.min(size, maxMessageBytes)
  }
  if (batch.length > 0) batches.push(batch)
  return batches
}

/** Stores one fetched message, then flags it \Seen: unseen until stored, so a crash loses nothing. */
async function storeAndFlag(cycle: Cycle, session: MailboxSession, uid: number, source: Buffer, size: number, headersOnly: boolean): Promise<void> {
  const { deps, report } = cycle
  // The test-only broken build (ATLAS_COLLECT_FAULT): \Seen first, so a crash before the insert loses the mail.
  const seenFirst = deps.config.fault === 'seen_before_insert' ? await session.markSeen(uid) : null
  await cycle.checkpoint('before_insert')
  const { stored, files } = await ingestSource(deps.db, source, {
    config: deps.config, actor: cycle.actor, dir: join(cycle.cycleDir, `uid-${uid}`), mailbox: session.mailbox, uidValidity: session.uidValidity, uid, size, headersOnly, resolver: cycle.resolver,
  })
  await cycle.checkpoint('after_insert')
  if (stored.outcome === 'ingested') report.ingested += 1
  else if (stored.outcome === 'quarantined') report.quarantined += 1
  else report.duplicates += 1
  const seen = seenFirst ?? await session.markSeen(uid)
  if (!seen) {
    report.seenNotConfirmed += 1
    deps.log(`[atlas-collect] the server did not confirm \\Seen on UID ${uid}: it will be seen again next cycle and recognised as already stored`)
  }
  await cycle.checkpoint('after_seen')
  if (stored.status === 'received' || stored.status === 'classification_failed') {
    cycle.items.set(stored.inboxId, { inboxId: stored.inboxId, files })
  }
}

/** Fetches one batch (sources, or header blocks for the oversized), stores and flags each message. */
async function ingestBatch(cycle: Cycle, session: MailboxSession, batch: number[], sizes: Map<number, number>): Promise<void> {
  const { deps } = cycle
  const maxBytes = deps.config.limits.maxMessageBytes
  const small = batch.filter(uid => (sizes.get(uid) ?? 0) <= maxBytes)
  const large = batch.filter(uid => (sizes.get(uid) ?? 0) > maxBytes)
  const sources = await session.sources(small)
  const headers = large.length > 0 ? await session.headerBlocks(large) : new Map<number, Buffer>()
  await cycle.checkpoint('after_fetch')
  let highest = 0
  for (const uid of batch) {
    if (deps.signal?.aborted) break
    const headersOnly = large.includes(uid)
    const source = headersOnly ? headers.get(uid) ?? Buffer.alloc(0) : sources.get(uid)
    if (!source) {
      deps.log(`[atlas-collect] UID ${uid} vanished before it could be fetched (expunged meanwhile?)`)
      continue
    }
    await storeAndFlag(cycle, session, uid, source, sizes.get(uid) ?? 0, headersOnly)
    highest = Math.max(highest, uid)
  }
  if (highest > 0) await deps.db.execute(sql`update atlas_mailbox_state set last_uid = greatest(last_uid, ${highest}) where mailbox = ${session.mailbox}`)
}

/** Earlier messages still to process whose attachments must be fetched again (by UID, same mailbox and UIDVALIDITY). */
async function refetchPending(cycle: Cycle, session: MailboxSession, pending: PendingRow[]): Promise<void> {
  const refetch = pending.filter(p => !cycle.items.has(p.inboxId) && p.attachments > 0 && p.mailbox === session.mailbox && p.uidValidity === session.uidValidity && p.uid !== null)
  if (refetch.length === 0) return
  const sources = await session.sources(refetch.map(p => p.uid!))
  for (const entry of refetch) {
    const source = sources.get(entry.uid!)
    if (!source) continue
    const again = await parseInto(source, join(cycle.cycleDir, `again-${entry.inboxId}`), cycle.deps.config)
    if (!again.quarantine) {
      cycle.items.set(entry.inboxId, { inboxId: entry.inboxId, files: filesOf(again.parsed) })
      cycle.report.refetched += 1
    }
  }
}

/** The IMAP session's work: count the unseen, then (unless a dry run) ingest them and refetch the pending. */
async function readMailbox(cycle: Cycle, session: MailboxSession, pending: PendingRow[], dryRun: boolean): Promise<void> {
  const { deps, report } = cycle
  report.mailbox = session.mailbox
  report.uidValidity = session.uidValidity
  const unseen = await session.unseenUids()
  report.unseen = unseen.length
  if (dryRun) return
  report.uidValidityChanged = await trackUidValidity(deps, session, cycle.actor)
  const uids = unseen.slice(0, deps.config.limits.maxMessagesPerCycle)
  const sizes = await session.sizes(uids)
  for (const batch of fetchBatches(uids, sizes, deps.config.limits.maxMessageBytes)) {
    await ingestBatch(cycle, session, batch, sizes)
  }
  await refetchPending(cycle, session, pending)
}

/** Polls the mailbox when one is configured; an IMAP failure is reported, never thrown (the pending still run). */
async function pollMailbox(cycle: Cycle, pending: PendingRow[], dryRun: boolean): Promise<void> {
  const { deps, report } = cycle
  const imap = deps.config.imap
  if (!imap) {
    deps.log('[atlas-collect] ATLAS_IMAP_HOST is not set: no mailbox to poll (pending messages are still processed)')
    return
  }
  try {
    await (deps.mailbox ?? withMailbox)(imap, session => readMailbox(cycle, session, pending, dryRun))
  }
  catch (error) {
    report.imap = 'failed'
    report.imapError = (error as Error).message
    deps.log(`[atlas-collect] IMAP: ${report.imapError}`)
  }
}

/** Messages from the watched folder (ATLAS_DROP_DIR) join the cycle's work. */
async function takeDropFolder(cycle: Cycle): Promise<void> {
  const { db, config, log } = cycle.deps
  const dropped = await collectDropFolder({ db, config, actor: cycle.actor, log, dir: join(cycle.cycleDir, 'drop'), resolver: cycle.resolver })
  cycle.report.dropped = dropped.length
  for (const item of dropped) cycle.items.set(item.inboxId, item)
}

/** Antivirus, OCR and classification for every message gathered, plus the stored ones still pending. */
async function processItems(cycle: Cycle, pending: PendingRow[], engine: { ocr?: OcrEngine }): Promise<void> {
  const { deps, items } = cycle
  const { db, config, log } = deps
  for (const entry of pending) {
    if (!items.has(entry.inboxId)) items.set(entry.inboxId, { inboxId: entry.inboxId, files: entry.attachments > 0 ? null : new Map() })
  }
  const scanner = deps.scanner ?? createScanner(config.scanner, config.limits.maxAttachmentBytes)
  const result = await runPipeline({
    db, ai: deps.ai, config, scanner, actor: cycle.actor, log, checkpoint: cycle.checkpoint, signal: deps.signal, embedder: deps.embedder,
    ocr: () => {
      engine.ocr ??= deps.ocr ? deps.ocr() : createOcrEngine(config.ocr, config.tmpDir)
      return engine.ocr
    },
  }, [...items.values()])
  const { outcomes: _outcomes, ...counts } = result
  cycle.report.pipeline = counts
}

export async function collect(deps: CollectDeps, options: { dryRun?: boolean } = {}): Promise<CollectReport> {
  const { db, config, log } = deps
  const report = emptyReport(config)
  const startedAt = Date.now()
  removeDeadCycleFolders(config.tmpDir, log)
  if (config.fault) log(`[atlas-collect] TEST FAULT ${config.fault} (ATLAS_COLLECT_FAULT): this collector is broken on purpose`)
  const cycle: Cycle = {
    deps, report, items: new Map(),
    actor: deps.actor ?? 'atlas-collect',
    checkpoint: createCheckpoint(config.pauseAt, log),
    resolver: cycleResolver({ timeoutMs: config.senderAuth.timeoutMs, log, base: deps.resolver }),
    cycleDir: mkdtempSync(join(config.tmpDir, `${CYCLE_PREFIX}${process.pid}-`)),
  }
  // The OCR engine starts on first use only; whoever started it, the `finally` closes it.
  const engine: { ocr?: OcrEngine } = {}
  try {
    const pending = await pendingInboxRows(db, config)
    await pollMailbox(cycle, pending, options.dryRun ?? false)
    if (options.dryRun) {
      log(`[atlas-collect] dry run: ${report.unseen} unseen message(s), ${pending.length} stored message(s) waiting; nothing changed`)
      return report
    }
    await takeDropFolder(cycle)
    report.timings.imapMs = Date.now() - startedAt
    await cycle.checkpoint('after_ingest')
    const pipelineStartedAt = Date.now()
    await processItems(cycle, pending, engine)
    report.timings.pipelineMs = Date.now() - pipelineStartedAt
    return report
  }
  finally {
    // The cycle's outcome is already decided; a worker that fails to close dies with the process.
    await engine.ocr?.close().catch(() => {})
    rmSync(cycle.cycleDir, { recursive: true, force: true })
  }
}
