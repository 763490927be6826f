// The vector sync (memory-and-learning.md §2.2): every source → one chunk per document →
// SHA-256 fingerprint; an unchanged chunk already embedded by the current model is skipped
// with no embedding call; the rest is embedded in batches of 50 and upserted on
// (source_type, source_id); documents gone from their source are removed. Options: rebuild
// (purge, then re-embed everything), a source-type filter, dry-run (nothing written, nothing
// embedded), a progress line on long runs.
import type { Db } from '#db/client'
import { SOURCE_TYPES, type SourceType } from '../sources'
import { chunkText, fingerprint } from './chunk'
import type { Embedder, EmbeddingTarget } from './embedder'
import { SOURCE_ADAPTERS, type SourceAdapter, type SourceDocument } from './sources'
import { deleteEmbeddings, purgeEmbeddings, storedFingerprints, upsertEmbeddings, type EmbeddingRow } from './store'

/** Inputs per embedding request (§2.2). */
export const SYNC_BATCH_SIZE = 50
/** A progress line every this many embedded documents, on runs embedding more than that. */
export const PROGRESS_EVERY = 500

export interface VectorSyncOptions {
  sources?: SourceType[]
  rebuild?: boolean
  dryRun?: boolean
  progressEvery?: number
}

export interface VectorSyncDeps {
  db: Db
  embedder: Embedder
  reflexDir: string
  log?: (line: string) => void
  /** Replaces the built-in sources (tests). */
  adapters?: Partial<Record<SourceType, SourceAdapter>>
  /** Stops between batches (the supervision wrapper aborts on a lost lease or a signal). */
  signal?: AbortSignal
}

export interface SourceSyncReport {
  type: SourceType
  documents: number
  embedded: number
  unchanged: number
  removed: number
  /** Re-embedded because another model embedded them. */
  modelChanged: number
  skipped?: string
}

export interface VectorSyncReport {
  dryRun: boolean
  rebuild: boolean
  target: EmbeddingTarget | null
  sources: SourceSyncReport[]
  embedded: number
  unchanged: number
  removed: number
  /** Embedding requests made (0 when nothing changed). */
  embedCalls: number
  purged: number
}

export class VectorSyncError extends Error {
  constructor(message: string, readonly report: VectorSyncReport) {
    super(message)
    this.name = 'VectorSyncError'
  }
}

interface Pending {
  document: SourceDocument
  content: string
  fingerprint: string
}

export function toPending(document: SourceDocument): Pending {
  const content = chunkText(document.text)
  return { document, content, fingerprint: fingerprint(content) }
}

export async function embedAndStore(
  db: Db,
  embedder: Embedder,
  type: SourceType,
  batch: Pending[],
): Promise<{ provider: string, model: string }> {
  const result = await embedder.embed(
    batch.map(item => item.content),
    'document',
  )
  if (result.vectors.length !== batch.length)
    throw new Error(`the embedding call answered ${result.vectors.length} vectors for ${batch.length} texts`)
  const rows: EmbeddingRow[] = batch.map((item, index) => ({
    sourceType: type,
    sourceId: item.document.sourceId,
    title: item.document.title.slice(0, 500),
    content: item.content,
    fingerprint: item.fingerprint,
    provider: result.provider,
    model: result.model,
    embedding: result.vectors[index]!,
    agent: item.document.agent ?? null,
    tenant: item.document.tenant ?? null,
    metadata: item.document.metadata ?? {},
  }))
  await upsertEmbeddings(db, rows)
  return { provider: result.provider, model: result.model }
}

/**
 * What a source's documents need: embedding when new, changed or embedded by another model
 * than the target (counted in the source's report), removal for stored ones no longer there.
 */
function compareWithStored(documents: Parameters<typeof toPending>[0][], stored: Awaited<ReturnType<typeof storedFingerprints>>, target: Awaited<ReturnType<VectorSyncDeps['embedder']['target']>>, source: SourceSyncReport): { pending: Pending[], gone: string[] } {
  const pending: Pending[] = []
  const seen = new Set<string>()
  for (const document of documents) {
    if (seen.has(document.sourceId)) continue
    seen.add(document.sourceId)
    const item = toPending(document)
    const previous = stored.get(document.sourceId)
    if (previous && previous.fingerprint === item.fingerprint) {
      if (!target || previous.model === target.model) {
        source.unchanged++
        continue
      }
      source.modelChanged++
    }
    pending.push(item)
  }
  return { pending, gone: [...stored.keys()].filter(id => !seen.has(id)) }
}

export async function syncVectors(deps: VectorSyncDeps, options: VectorSyncOptions = {}): Promise<VectorSyncReport> {
  const { db, embedder } = deps
  const log = deps.log ?? (() => {})
  const types = options.sources?.length ? SOURCE_TYPES.filter(type => options.sources!.includes(type)) : [...SOURCE_TYPES]
  const dryRun = options.dryRun ?? false
  const rebuild = options.rebuild ?? false
  const progressEvery = options.progressEvery ?? PROGRESS_EVERY
  const adapters = { ...SOURCE_ADAPTERS, ...deps.adapters }
  const target = await embedder.target()
  const report: VectorSyncReport = { dryRun, rebuild, target, sources: [], embedded: 0, unchanged: 0, removed: 0, embedCalls: 0, purged: 0 }

  // Load and compare first: the size of the work is known before any call.
  const plans: Array<{ type: SourceType, pending: Pending[], gone: string[], source: SourceSyncReport }> = []
  for (const type of types) {
    const loaded = await adapters[type].load({ db, reflexDir: deps.reflexDir })
    if ('skipped' in loaded) {
      report.sources.push({ type, documents: 0, embedded: 0, unchanged: 0, removed: 0, modelChanged: 0, skipped: loaded.skipped })
      log(`[vector-sync] ${type}: skipped — ${loaded.skipped}`)
      continue
    }
    const stored = rebuild ? new Map() : await storedFingerprints(db, type)
    const source: SourceSyncReport = { type, documents: loaded.documents.length, embedded: 0, unchanged: 0, removed: 0, modelChanged: 0 }
    const { pending, gone } = compareWithStored(loaded.documents, stored, target, source)
    plans.push({ type, pending, gone, source })
    report.sources.push(source)
  }

  const total = plans.reduce((sum, plan) => sum + plan.pending.length, 0)
  if (total > 0 && !target && !dryRun) {
    throw new VectorSyncError('no embedding provider is available (none configured and the offline fallback is refused): nothing was embedded', report)
  }
  if (rebuild && !dryRun) report.purged = await purgeEmbeddings(db, plans.map(plan => plan.type))

  let done = 0
  let nextProgress = progressEvery
  for (const plan of plans) {
    const { type, pending, gone, source } = plan
    if (!dryRun && gone.length > 0) source.removed = await deleteEmbeddings(db, type, gone)
    if (dryRun) {
      source.embedded = pending.length
      source.removed = gone.length
      continue
    }
    for (let start = 0; start < pending.length; start += SYNC_BATCH_SIZE) {
      if (deps.signal?.aborted) throw new VectorSyncError(`stopped after ${done} document(s): ${String((deps.signal.reason as Error | undefined)?.message ?? 'aborted')}`, finish(report))
      const batch = pending.slice(start, start + SYNC_BATCH_SIZE)
      report.embedCalls++
      let answered: { model: string }
      try {
        answered = await embedAndStore(db, embedder, type, batch)
      }
      catch (error) {
        source.embedded = start
        throw new VectorSyncError(`${type}: embedding failed after ${done} document(s): ${(error as Error).message}`, finish(report))
      }
      if (target && answered.model !== target.model) log(`[vector-sync] note: ${type} embedded by ${answered.model} while ${target.model} was expected`)
      done += batch.length
      source.embedded = start + batch.length
      if (total > progressEvery && done >= nextProgress) {
        log(`[vector-sync] progress: ${done}/${total} embedded (${Math.floor((done / total) * 100)}%), now ${type}`)
        nextProgress += progressEvery
      }
    }
  }
  return finish(report)
}

function finish(report: VectorSyncReport): VectorSyncReport {
  report.embedded = report.sources.reduce((sum, source) => sum + source.embedded, 0)
  report.unchanged = report.sources.reduce((sum, source) => sum + source.unchanged, 0)
  report.removed = report.sources.reduce((sum, source) => sum + source.removed, 0)
  return report
}
