// Drives the real ingestion and pipeline in process, without IMAP: each raw message is
// parsed into a temporary folder and stored exactly as the collector does, then scanned,
// OCR'd and classified by runPipeline. The folder is removed afterwards. Sender authentication
// uses the test's loopback DNS zone, or one that knows nothing (unsigned mail: verdict none).
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAudit, atlasInbox, atlasMessages } from '#db/schema/atlas'
import type { AiFacade } from '#layers/ai/core/facade'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { ingestSource } from '../../core/ingest-source'
import { readAtlasConfig, type AtlasConfig, type AtlasEnv } from '../../core/config'
import type { StoredMessage } from '../../core/ingest/store'
import { createOcrEngine, type OcrEngine } from '../../core/ocr'
import { runPipeline, type PipelineReport, type WorkItem } from '../../core/pipeline'
import { createScanner, type Scanner } from '../../core/scan/clamav'
import type { DNSResolver } from '../../core/auth/verify'
import { emptyResolver } from '../fixtures/sender-auth'

let uid = 1000

export function testConfig(env: AtlasEnv = {}): AtlasConfig {
  return readAtlasConfig({ ATLAS_OCR_ENABLED: '0', ...env })
}

export interface Delivery {
  stored: StoredMessage[]
  report: PipelineReport
  logs: string[]
}

export async function deliver(db: Db, ai: Pick<AiFacade, 'complete'>, raws: Buffer[], options: { config: AtlasConfig, scanner?: Scanner, ocr?: () => OcrEngine, checkpoint?: (point: string) => Promise<void>, resolver?: DNSResolver, embedder?: Embedder }): Promise<Delivery> {
  const dir = mkdtempSync(join(options.config.tmpDir, 'atlas-deliver-'))
  const logs: string[] = []
  let engine: OcrEngine | undefined
  try {
    const stored: StoredMessage[] = []
    const items: WorkItem[] = []
    for (const [index, raw] of raws.entries()) {
      uid += 1
      const result = await ingestSource(db, raw, { config: options.config, actor: 'atlas-collect', dir: join(dir, String(index)), mailbox: 'INBOX', uidValidity: 1, uid, resolver: options.resolver ?? emptyResolver })
      stored.push(result.stored)
      if (result.stored.status === 'received') items.push({ inboxId: result.stored.inboxId, files: result.files })
    }
    const report = await runPipeline({
      db, ai, config: options.config, actor: 'atlas-collect', log: line => void logs.push(line),
      scanner: options.scanner ?? createScanner(options.config.scanner, options.config.limits.maxAttachmentBytes),
      ocr: () => (engine ??= options.ocr ? options.ocr() : createOcrEngine(options.config.ocr, options.config.tmpDir)),
      checkpoint: options.checkpoint ?? (async () => {}),
      embedder: options.embedder,
    }, items)
    return { stored, report, logs }
  }
  finally {
    await engine?.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Processes stored messages again (retries, re-classifications), without attachment files. */
export async function reprocess(db: Db, ai: Pick<AiFacade, 'complete'>, inboxIds: number[], options: { config: AtlasConfig, scanner?: Scanner, checkpoint?: (point: string) => Promise<void> }): Promise<PipelineReport> {
  return await runPipeline({
    db, ai, config: options.config, actor: 'atlas-collect', log: () => {},
    scanner: options.scanner ?? createScanner(options.config.scanner, options.config.limits.maxAttachmentBytes),
    ocr: () => createOcrEngine(options.config.ocr),
    checkpoint: options.checkpoint ?? (async () => {}),
  }, inboxIds.map(inboxId => ({ inboxId, files: null })))
}

export async function inboxOf(db: Db, messageRowId: number) {
  const [row] = await db.select().from(atlasInbox).where(eq(atlasInbox.messageId, messageRowId))
  return row!
}

export async function messageOf(db: Db, messageRowId: number) {
  const [row] = await db.select().from(atlasMessages).where(eq(atlasMessages.id, messageRowId))
  return row!
}

export async function auditOf(db: Db, messageRowId: number) {
  return await db.select().from(atlasAudit).where(eq(atlasAudit.messageId, messageRowId)).orderBy(atlasAudit.id)
}

export async function actionsOf(db: Db, messageRowId: number): Promise<string[]> {
  return (await auditOf(db, messageRowId)).map(entry => entry.action)
}
