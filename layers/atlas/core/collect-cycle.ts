// What one collector cycle shares between its stages: the dependencies it is given, the
// report it fills and the work it gathers for the pipeline.
import type { Db } from '#db/client'
import type { AiFacade } from '#layers/ai/core/facade'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import type { DNSResolver } from './auth/verify'
import type { AtlasConfig } from './config'
import type { withMailbox } from './ingest/imap'
import type { OcrEngine } from './ocr'
import type { pendingInboxRows, PipelineReport, WorkItem } from './pipeline'
import type { Scanner } from './scan/clamav'

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

export type PendingRow = Awaited<ReturnType<typeof pendingInboxRows>>[number]

/** What every stage of one cycle shares: its dependencies, its report and the work it gathers. */
export interface Cycle {
  deps: CollectDeps
  actor: string
  checkpoint: (point: string) => Promise<void>
  report: CollectReport
  cycleDir: string
  resolver: DNSResolver
  /** The messages the pipeline will process, by inbox id. */
  items: Map<number, WorkItem>
}

export function emptyReport(config: AtlasConfig): CollectReport {
  return {
    imap: config.imap ? 'ok' : 'not_configured', unseen: 0, ingested: 0, quarantined: 0, duplicates: 0, seenNotConfirmed: 0, refetched: 0, dropped: 0,
    pipeline: { classified: 0, blocked: 0, failed: 0, stale: 0, skipped: 0 },
    timings: { imapMs: 0, pipelineMs: 0 },
  }
}
