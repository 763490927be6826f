// After ingestion, in the same cycle: antivirus on every attachment, then (only when every
// verdict is clean) OCR of the images and the classification. A message whose attachments
// are not all clean is blocked (blocked_unsafe) and no model ever sees it.
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAttachments, atlasInbox, atlasMessages, type AtlasAttachment, type AtlasInboxRow, type AtlasMessage } from '#db/schema/atlas'
import type { AiFacade } from '#layers/ai/core/facade'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { isWorkKind } from '#layers/worksites/core/registries'
import { recallForRecord } from '#layers/worksites/core/pre-creation-recall'
import { recordAtlasAudit } from './audit'
import { classifyMessage, type ClassifyOutcome } from './classify/classify'
import type { AtlasConfig } from './config'
import { extractImageText, isOcrCandidate, type OcrEngine } from './ocr'
import type { Scanner } from './scan/clamav'

export interface WorkItem {
  inboxId: number
  /** Attachment files by position, or null when the source could not be fetched this cycle. */
  files: Map<number, string> | null
}

export interface PipelineDeps {
  db: Db
  ai: Pick<AiFacade, 'complete'>
  config: AtlasConfig
  scanner: Scanner
  /** The OCR engine, created on first use. */
  ocr: () => OcrEngine
  actor: string
  log: (line: string) => void
  checkpoint: (point: string) => Promise<void>
  signal?: AbortSignal
  /** Embeddings for the recall before creation of a new work record (none: no recall). */
  embedder?: Embedder
}

export interface PipelineReport {
  classified: number
  blocked: number
  failed: number
  stale: number
  skipped: number
  outcomes: Array<{ inboxId: number, status: string }>
}

/** Rows still to process: fresh ones, and failed ones under the retry cap. */
function processable(maxAttempts: number) {
  return or(eq(atlasInbox.status, 'received'), and(eq(atlasInbox.status, 'classification_failed'), sql`${atlasInbox.classifyAttempts} < ${maxAttempts}`))
}

export async function pendingInboxRows(
  db: Db,
  config: AtlasConfig,
  limit = 500,
): Promise<Array<{ inboxId: number, mailbox: string, uidValidity: number | null, uid: number | null, attachments: number }>> {
  const rows = await db
    .select({
      inboxId: atlasInbox.id,
      mailbox: atlasMessages.mailbox,
      uidValidity: atlasMessages.uidValidity,
      uid: atlasMessages.uid,
      attachments: sql<number>`(select count(*)::int from atlas_attachments a where a.message_id = ${atlasMessages.id})`,
    })
    .from(atlasInbox)
    .innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId))
    .where(processable(config.classifier.maxAttempts))
    .orderBy(asc(atlasInbox.id))
    .limit(limit)
  return rows
}

async function blockUnsafe(deps: PipelineDeps, inbox: AtlasInboxRow, reason: string, attachments: AtlasAttachment[]): Promise<boolean> {
  return await deps.db.transaction(async (tx) => {
    const updated = await tx.update(atlasInbox).set({
      status: 'blocked_unsafe', statusReason: reason, needsHuman: true, revision: sql`${atlasInbox.revision} + 1`, updatedAt: new Date(),
    }).where(and(eq(atlasInbox.id, inbox.id), eq(atlasInbox.revision, inbox.revision))).returning({ id: atlasInbox.id })
    if (updated.length === 0) return false
    await recordAtlasAudit(tx, {
      messageId: inbox.messageId,
      action: 'blocked_unsafe',
      actor: deps.actor,
      details: {
        reason,
        attachments: attachments.map(a => ({
          position: a.position,
          filename: a.filename,
          verdict: a.verdict,
          signature: a.signature,
          reason: a.verdictReason,
          scanner: a.scanner,
        })),
      },
    })
    return true
  })
}

function describeUnsafe(attachments: AtlasAttachment[], refetched: boolean): string {
  const bad = attachments.filter(a => a.verdict !== 'clean')
  return bad.map((a) => {
    const name = a.filename ?? `attachment ${a.position}`
    if (a.verdict === 'infected') return `${name}: infected (${a.signature})`
    if (a.verdict === 'error') return `${name}: scan error (${a.verdictReason})`
    return refetched ? `${name}: not scanned` : `${name}: not scanned (the message could not be fetched again from the mailbox)`
  }).join('; ')
}

type Row = { atlas_inbox: AtlasInboxRow, atlas_messages: AtlasMessage }
type Files = WorkItem['files']

/** Step 1, the antivirus: one batch for the whole cycle; a file the scanner could not reach is an `error` verdict. */
async function scanAttachments(
  deps: PipelineDeps,
  rows: Row[],
  byId: Map<number, WorkItem>,
  attachmentRows: AtlasAttachment[],
): Promise<void> {
  const toScan: Array<{ attachment: AtlasAttachment, path: string | undefined }> = []
  for (const row of rows) {
    const files = byId.get(row.atlas_inbox.id)!.files
    if (!files) continue
    for (const attachment of attachmentRows.filter(a => a.messageId === row.atlas_messages.id))
      toScan.push({ attachment, path: files.get(attachment.position) })
  }
  if (toScan.length === 0) return
  const paths = toScan.map(entry => entry.path).filter((path): path is string => Boolean(path))
  const verdicts = paths.length > 0 ? await deps.scanner.scanFiles(paths) : new Map()
  for (const { attachment, path } of toScan) {
    const verdict = path ? verdicts.get(path) : undefined
    const values = verdict
      ? {
          verdict: verdict.verdict,
          signature: verdict.signature ?? null,
          verdictReason: verdict.reason ?? null,
          scanner: verdict.scanner,
          scannedAt: new Date(),
        }
      : {
          verdict: 'error' as const,
          signature: null,
          verdictReason: 'the attachment file was not available to the scanner',
          scanner: deps.scanner.name,
          scannedAt: new Date(),
        }
    await deps.db.update(atlasAttachments).set(values).where(eq(atlasAttachments.id, attachment.id))
    Object.assign(attachment, values)
  }
}

/** Runs jobs one at a time, in order: the OCR engine reads one image at a time. */
function serialQueue(): <T>(job: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve()
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(job, job)
    // The chain only orders the jobs: a failure reaches its caller through `run`, and must not
    // stop the next image's OCR.
    queue = run.catch(() => {})
    return run
  }
}

/** The text of a message's images (audited), or undefined with a note saying why the classification goes without it. */
async function readImages(
  deps: PipelineDeps,
  message: AtlasMessage,
  attachments: AtlasAttachment[],
  files: Files,
  notes: string[],
  serial: ReturnType<typeof serialQueue>,
): Promise<string | undefined> {
  const { config } = deps
  if (attachments.length > 0 && !files)
    notes.push('attachments not available again this cycle: classified on the text, with the verdicts of the earlier scan, without OCR')
  const images = files ? attachments.filter(a => isOcrCandidate(a.contentType) && files.has(a.position)) : []
  if (!config.ocr.enabled || images.length === 0 || !files) return undefined
  let text: string | undefined
  try {
    const result = await serial(() =>
      extractImageText(
        deps.ocr(),
        images.map(a => ({ position: a.position, path: files.get(a.position)!, contentType: a.contentType })),
        config.ocr,
      ),
    )
    text = result.text
    await recordAtlasAudit(deps.db, {
      messageId: message.id,
      action: 'ocr_extracted',
      actor: deps.actor,
      details: { characters: result.text.length, images: result.images, skipped: result.skipped.length > 0 ? result.skipped : undefined },
    })
  }
  catch (error) {
    notes.push(`OCR failed (${(error as Error).message.slice(0, 200)}): classified without the image text`)
  }
  return text
}

/** The recall before creation, for a new (or re-activated) record only: an updated one was recalled when it was created. */
async function recallNewRecord(deps: PipelineDeps, message: AtlasMessage, outcome: ClassifyOutcome): Promise<void> {
  // A message awaiting approval has no record yet: its approval recalls (approval.ts).
  if (outcome.status !== 'classified' || !outcome.materialised || !deps.embedder) return
  const { kind, id, action } = outcome.materialised
  if ((action !== 'created' && action !== 'reactivated') || !isWorkKind(kind)) return
  try {
    await recallForRecord(
      { db: deps.db, embedder: deps.embedder, log: deps.log },
      { kind, id, title: message.subject, body: message.textBody },
    )
  }
  catch (error) {
    deps.log(`[atlas] message ${message.id}: storing the recall before creating ${kind} ${id} failed (${(error as Error).message}); the record stands without it`)
  }
}

/** Step 2 for one message: blocked when an attachment is not clean, else OCR and classification. */
async function processRow(
  deps: PipelineDeps,
  row: Row,
  files: Files,
  attachments: AtlasAttachment[],
  report: PipelineReport,
  serial: ReturnType<typeof serialQueue>,
): Promise<void> {
  const inbox = row.atlas_inbox
  const message = row.atlas_messages
  if (attachments.some(a => a.verdict !== 'clean')) {
    const blocked = await blockUnsafe(deps, inbox, describeUnsafe(attachments, files !== null), attachments)
    if (blocked) report.blocked += 1
    else report.stale += 1
    report.outcomes.push({ inboxId: inbox.id, status: blocked ? 'blocked_unsafe' : 'stale' })
    return
  }
  const notes: string[] = []
  const ocrText = await readImages(deps, message, attachments, files, notes, serial)
  const outcome: ClassifyOutcome = await classifyMessage(
    {
      db: deps.db,
      ai: deps.ai,
      config: deps.config.classifier,
      actor: deps.actor,
      log: deps.log,
      beforeCommit: () => deps.checkpoint('before_classify_commit'),
    },
    { inbox, message, attachments, ocrText, notes },
  )
  await recallNewRecord(deps, message, outcome)
  if (outcome.status === 'classified' || outcome.status === 'awaiting_approval') report.classified += 1
  else if (outcome.status === 'classification_failed') report.failed += 1
  else report.stale += 1
  report.outcomes.push({ inboxId: inbox.id, status: outcome.status })
}

export async function runPipeline(deps: PipelineDeps, items: WorkItem[]): Promise<PipelineReport> {
  const report: PipelineReport = { classified: 0, blocked: 0, failed: 0, stale: 0, skipped: 0, outcomes: [] }
  if (items.length === 0) return report
  const { db, config } = deps
  const byId = new Map(items.map(item => [item.inboxId, item]))
  const rows = await db.select().from(atlasInbox)
    .innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId))
    .where(and(inArray(atlasInbox.id, [...byId.keys()]), processable(config.classifier.maxAttempts)))
    .orderBy(asc(atlasInbox.id))
  report.skipped = items.length - rows.length
  const attachmentRows
    = rows.length === 0
      ? []
      : await db
          .select()
          .from(atlasAttachments)
          .where(
            inArray(
              atlasAttachments.messageId,
              rows.map(r => r.atlas_messages.id),
            ),
          )
          .orderBy(asc(atlasAttachments.position))

  await scanAttachments(deps, rows, byId, attachmentRows)
  await deps.checkpoint('after_scan')

  // Several messages at a time (the model's latency dominates), the OCR engine one image at a time.
  const serial = serialQueue()
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < rows.length) {
      const row = rows[next++]!
      if (deps.signal?.aborted) {
        deps.log(`[atlas] stopping before message ${row.atlas_messages.id}: ${String(deps.signal.reason ?? 'aborted')} (the rest waits for the next cycle)`)
        next = rows.length
        return
      }
      const attachments = attachmentRows.filter(a => a.messageId === row.atlas_messages.id)
      await processRow(deps, row, byId.get(row.atlas_inbox.id)!.files, attachments, report, serial)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(config.classifier.concurrency, rows.length)) }, lane))
  return report
}
