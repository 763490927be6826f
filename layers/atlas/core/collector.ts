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
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { cycleResolver } from './auth/cycle-resolver'
import { createCheckpoint } from './collect-checkpoint'
import { emptyReport, type CollectDeps, type CollectReport, type Cycle, type PendingRow } from './collect-cycle'
import { CYCLE_PREFIX, removeDeadCycleFolders } from './cycle-folders'
import { collectDropFolder } from './ingest/drop-folder'
import { withMailbox } from './ingest/imap'
import { readMailbox } from './mailbox-read'
import { createOcrEngine, type OcrEngine } from './ocr'
import { pendingInboxRows, runPipeline } from './pipeline'
import { createScanner } from './scan/clamav'

export type { CollectDeps, CollectReport } from './collect-cycle'

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
