// The vector index's dimension as the database has it: 1024 as migrated (the seed's), or
// what the last re-embed (reembed.ts) swapped in. Read once per database handle, and again
// when a vector of another length comes (another process may have swapped the index since).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'

const known = new WeakMap<object, number>()
const halfPrecision = new WeakMap<object, boolean>()

export async function indexDimensions(db: Db): Promise<number> {
  const cached = known.get(db)
  if (cached !== undefined) return cached
  const [row] = await db.execute<{ dimensions: number }>(sql`
    select atttypmod as dimensions from pg_attribute
    where attrelid = 'mem_embeddings'::regclass and attname = 'embedding' and not attisdropped`)
  const dimensions = Number(row?.dimensions)
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`mem_embeddings.embedding has no fixed dimension (atttypmod ${String(row?.dimensions)})`)
  known.set(db, dimensions)
  return dimensions
}

export function forgetIndexDimensions(db: Db): void {
  known.delete(db)
  halfPrecision.delete(db)
}

/** The index's dimension for a vector of `length`: read again once when they differ. */
export async function dimensionsFor(db: Db, length: number): Promise<number> {
  const dimensions = await indexDimensions(db)
  if (dimensions === length) return dimensions
  forgetIndexDimensions(db)
  return await indexDimensions(db)
}

/**
 * Whether the HNSW index holds half-precision vectors (migration 0029: on PostgreSQL; on
 * PGlite, whose WebAssembly build computes halfvec distances several times slower, it keeps
 * full precision). Read once per database handle; the semantic arm's ORDER BY must match it.
 */
export async function halfPrecisionIndex(db: Db): Promise<boolean> {
  const cached = halfPrecision.get(db)
  if (cached !== undefined) return cached
  const [row] = await db.execute<{ half: boolean }>(sql`select coalesce(pg_get_indexdef(to_regclass('mem_embeddings_embedding_hnsw_idx')) like '%halfvec%', false) as half`)
  const half = row?.half === true
  halfPrecision.set(db, half)
  return half
}
