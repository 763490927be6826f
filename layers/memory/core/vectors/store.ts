// mem_embeddings: read fingerprints, upsert on (source_type, source_id), delete, purge.
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { memEmbeddings } from '#db/schema/mem'
import { dimensionsFor } from './dimensions'
import type { SourceType } from '../sources'

export interface StoredFingerprint {
  fingerprint: string
  model: string
}

export interface EmbeddingRow {
  sourceType: SourceType
  sourceId: string
  title: string
  content: string
  fingerprint: string
  provider: string
  model: string
  embedding: number[]
  agent: string | null
  tenant: string | null
  metadata: Record<string, unknown>
}

export async function storedFingerprints(db: Db, type: SourceType, ids?: string[]): Promise<Map<string, StoredFingerprint>> {
  const rows = await db.select({ sourceId: memEmbeddings.sourceId, fingerprint: memEmbeddings.fingerprint, model: memEmbeddings.model })
    .from(memEmbeddings)
    .where(ids ? and(eq(memEmbeddings.sourceType, type), inArray(memEmbeddings.sourceId, ids)) : eq(memEmbeddings.sourceType, type))
  return new Map(rows.map(row => [row.sourceId, { fingerprint: row.fingerprint, model: row.model }]))
}

export async function upsertEmbeddings(db: Db, rows: EmbeddingRow[]): Promise<void> {
  if (rows.length === 0) return
  const dimensions = await dimensionsFor(db, rows[0]!.embedding.length)
  for (const row of rows) {
    if (row.embedding.length !== dimensions) throw new Error(`${row.sourceType}:${row.sourceId}: the model answered a ${row.embedding.length}-dimension vector; the index holds ${dimensions} (to change it: npm run memory:reembed)`)
    if (row.embedding.some(value => !Number.isFinite(value))) throw new Error(`${row.sourceType}:${row.sourceId}: the vector holds a non-finite value`)
  }
  await db.insert(memEmbeddings).values(rows).onConflictDoUpdate({
    target: [memEmbeddings.sourceType, memEmbeddings.sourceId],
    set: {
      title: sql`excluded.title`,
      content: sql`excluded.content`,
      fingerprint: sql`excluded.fingerprint`,
      provider: sql`excluded.provider`,
      model: sql`excluded.model`,
      embedding: sql`excluded.embedding`,
      agent: sql`excluded.agent`,
      tenant: sql`excluded.tenant`,
      metadata: sql`excluded.metadata`,
      updatedAt: sql`now()`,
    },
  })
}

export async function deleteEmbeddings(db: Db, type: SourceType, ids: string[]): Promise<number> {
  let removed = 0
  for (let start = 0; start < ids.length; start += 500) {
    const gone = await db.delete(memEmbeddings)
      .where(and(eq(memEmbeddings.sourceType, type), inArray(memEmbeddings.sourceId, ids.slice(start, start + 500))))
      .returning({ id: memEmbeddings.id })
    removed += gone.length
  }
  return removed
}

export async function purgeEmbeddings(db: Db, types: SourceType[]): Promise<number> {
  const gone = await db.delete(memEmbeddings).where(inArray(memEmbeddings.sourceType, types)).returning({ id: memEmbeddings.id })
  return gone.length
}
