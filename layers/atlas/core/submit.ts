// A message handed in by a person rather than fetched from the mailbox: an .eml pasted in the
// hub, or one composed there from a small form (the way to try Atlas before any mailbox is
// configured). It goes through the very steps of IMAP mail: parse and store (quarantine
// included), then the pipeline at once — antivirus, OCR of images, classification, work record.
// The person is the actor of every audit record it leaves.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import MailComposer from 'nodemailer/lib/mail-composer'
import type { Db } from '#db/client'
import { atlasInbox } from '#db/schema/atlas'
import type { AiFacade } from '#layers/ai/core/facade'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { createCheckpoint } from './collect-checkpoint'
import type { AtlasConfig } from './config'
import { CYCLE_PREFIX } from './cycle-folders'
import { ingestSource } from './ingest-source'
import { createOcrEngine, type OcrEngine } from './ocr'
import { runPipeline } from './pipeline'
import { createScanner, type Scanner } from './scan/clamav'

/** The mailbox name such messages are stored under (IMAP mailboxes are named by the server). */
export const HUB_MAILBOX = 'hub'

export interface SubmitDeps {
  db: Db
  ai: Pick<AiFacade, 'complete'>
  config: AtlasConfig
  /** The person handing the message in (their e-mail). */
  actor: string
  log: (line: string) => void
  scanner?: Scanner
  ocr?: () => OcrEngine
  /** Embeddings for the recall before a work record's creation (none: no recall). */
  embedder?: Embedder
}

export interface SubmitResult {
  messageId: number
  inboxId: number
  outcome: 'ingested' | 'quarantined' | 'duplicate'
  /** The inbox status once the pipeline ran (classified, blocked_unsafe, quarantined…). */
  status: string
}

export interface ComposedMessage {
  from: string
  subject: string
  text: string
}

/** An RFC 5322 source for a message written in the hub's form. */
export async function composeMessage(message: ComposedMessage, to = 'atlas@hub.invalid'): Promise<Buffer> {
  return await new MailComposer({ from: message.from, to, subject: message.subject, text: message.text, headers: { 'X-Synedre-Via': 'hub test message' } }).compile().build()
}

export async function submitMessage(deps: SubmitDeps, source: Buffer): Promise<SubmitResult> {
  const { db, config, actor, log } = deps
  mkdirSync(config.tmpDir, { recursive: true })
  // Named like a collector cycle's folder, so that a hub killed mid-way has it removed by the next cycle.
  const dir = mkdtempSync(join(config.tmpDir, `${CYCLE_PREFIX}${process.pid}-hub-`))
  let ocr: OcrEngine | undefined
  try {
    const { stored, files } = await ingestSource(db, source, { config, actor, dir: join(dir, 'message'), mailbox: HUB_MAILBOX, uidValidity: null, uid: null })
    log(`[atlas] message #${stored.messageRowId} handed in by ${actor}: ${stored.outcome} (${stored.status})`)
    if (stored.status === 'received' || stored.status === 'classification_failed') {
      await runPipeline({
        db, ai: deps.ai, config, actor, log, embedder: deps.embedder,
        scanner: deps.scanner ?? createScanner(config.scanner, config.limits.maxAttachmentBytes),
        checkpoint: createCheckpoint(undefined, log),
        ocr: () => {
          ocr ??= deps.ocr ? deps.ocr() : createOcrEngine(config.ocr, config.tmpDir)
          return ocr
        },
      }, [{ inboxId: stored.inboxId, files }])
    }
    const [row] = await db.select({ status: atlasInbox.status }).from(atlasInbox).where(eq(atlasInbox.id, stored.inboxId))
    return { messageId: stored.messageRowId, inboxId: stored.inboxId, outcome: stored.outcome, status: row?.status ?? stored.status }
  }
  finally {
    await ocr?.close().catch((error: Error) => log(`[atlas] closing the OCR engine after a handed-in message: ${error.message}`))
    rmSync(dir, { recursive: true, force: true })
  }
}
