// Index statistics for the hub: chunks per source type (with their models and freshness)
// and notes per vault sub-space.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { memEmbeddings, memNotes } from '#db/schema/mem'
import { SOURCE_LABELS, SOURCE_TYPES, type SourceType } from './sources'
import { SPACE_LABELS, VAULT_SPACES, type VaultSpace } from './vault/layout'

export interface SourceStats {
  type: SourceType
  label: string
  chunks: number
  models: Array<{ provider: string, model: string, chunks: number }>
  lastEmbeddedAt: string | null
}

export interface MemoryStats {
  sources: SourceStats[]
  totalChunks: number
  notes: Array<{ space: VaultSpace, label: string, notes: number, lastIndexedAt: string | null }>
  totalNotes: number
}

export async function memoryStats(db: Db): Promise<MemoryStats> {
  const rows = await db.select({
    type: memEmbeddings.sourceType,
    provider: memEmbeddings.provider,
    model: memEmbeddings.model,
    chunks: sql<number>`count(*)::int`,
    last: sql<string | null>`max(${memEmbeddings.updatedAt})::text`,
  }).from(memEmbeddings).groupBy(memEmbeddings.sourceType, memEmbeddings.provider, memEmbeddings.model)
  const noteRows = await db.select({
    space: memNotes.space,
    notes: sql<number>`count(*)::int`,
    last: sql<string | null>`max(${memNotes.indexedAt})::text`,
  }).from(memNotes).groupBy(memNotes.space)

  const sources = SOURCE_TYPES.map((type) => {
    const mine = rows.filter(row => row.type === type)
    const last = mine
      .map(row => row.last)
      .filter((value): value is string => Boolean(value))
      .map(value => new Date(value))
      .sort((a, b) => b.getTime() - a.getTime())[0]
    return {
      type,
      label: SOURCE_LABELS[type],
      chunks: mine.reduce((sum, row) => sum + Number(row.chunks), 0),
      models: mine.map(row => ({ provider: row.provider, model: row.model, chunks: Number(row.chunks) })),
      lastEmbeddedAt: last ? last.toISOString() : null,
    }
  })
  const notes = VAULT_SPACES.map((space) => {
    const row = noteRows.find(item => item.space === space)
    return {
      space,
      label: SPACE_LABELS[space],
      notes: Number(row?.notes ?? 0),
      lastIndexedAt: row?.last ? new Date(row.last).toISOString() : null,
    }
  })
  return {
    sources,
    totalChunks: sources.reduce((sum, source) => sum + source.chunks, 0),
    notes,
    totalNotes: notes.reduce((sum, space) => sum + space.notes, 0),
  }
}
