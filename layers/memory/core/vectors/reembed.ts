// Changing the embedder or the index's dimension without ever mixing two models in one
// index: every chunk is re-embedded by the routed embedder into a new column
// (embedding_next, at the target dimension) while recall keeps serving the old one; then, in
// one transaction under an exclusive lock (chunks written meanwhile embedded there too), the
// columns are swapped and the HNSW index rebuilt at the new dimension, in the precision it had. Resumable: a run stopped halfway keeps
// what it embedded. `npm run memory:reembed`.
import { sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client'
import { SYNC_BATCH_SIZE as EMBEDDING_BATCH } from './sync'
import { forgetIndexDimensions, halfPrecisionIndex, indexDimensions } from './dimensions'
import type { Embedder } from './embedder'
import { hnswIndexDefinition } from '../recall/arms'

export interface ReembedReport {
  from: { dimensions: number, models: string[] }
  to: { provider: string, model: string, dimensions: number }
  reembedded: number
  swapped: boolean
}

export class ReembedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReembedError'
  }
}

async function nextColumnDimensions(db: Db | Tx): Promise<number | null> {
  const [row] = await db.execute<{ dimensions: number }>(sql`select atttypmod as dimensions from pg_attribute where attrelid = 'mem_embeddings'::regclass and attname = 'embedding_next' and not attisdropped`)
  return row ? Number(row.dimensions) : null
}

/** Embeds the chunks still without a next vector, a batch at a time; returns how many. */
async function fill(db: Db | Tx, embedder: Embedder, dimensions: number, log: (line: string) => void): Promise<number> {
  let done = 0
  for (;;) {
    const rows = [...await db.execute<{ id: number, content: string }>(sql`select id, content from mem_embeddings where embedding_next is null order by id limit ${EMBEDDING_BATCH}`)]
    if (rows.length === 0) return done
    const answer = await embedder.embed(rows.map(row => row.content), 'document')
    if (answer.vectors.length !== rows.length || answer.vectors.some(vector => vector.length !== dimensions)) {
      throw new ReembedError(`${answer.provider}/${answer.model} answered vectors of ${answer.vectors[0]?.length ?? 0} dimensions, ${dimensions} were asked: nothing swapped (check the routing table's params.dimensions and what the model supports)`)
    }
    const payload = JSON.stringify(rows.map((row, index) => ({ id: Number(row.id), v: `[${answer.vectors[index]!.join(',')}]` })))
    await db.execute(sql`update mem_embeddings e set embedding_next = cast(x.v as vector), provider_next = ${answer.provider}, model_next = ${answer.model}
      from jsonb_to_recordset(${payload}::jsonb) as x(id bigint, v text) where e.id = x.id`)
    done += rows.length
    log(`[memory-reembed] ${done} chunk(s) re-embedded by ${answer.provider}/${answer.model}`)
  }
}

export async function reembedIndex(deps: { db: Db, embedder: Embedder, log?: (line: string) => void }): Promise<ReembedReport> {
  const { db, embedder } = deps
  const log = deps.log ?? (() => {})
  const target = await embedder.target()
  if (!target) throw new ReembedError('no embedding provider is available: nothing to re-embed with')
  const dimensions = target.dimensions ?? await indexDimensions(db)
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) throw new ReembedError(`the index holds 1 to 2000 dimensions (the routing table asks for ${dimensions})`)
  const current = await indexDimensions(db)
  const models = [...await db.execute<{ model: string }>(sql`select distinct model from mem_embeddings order by model`)].map(row => row.model)
  const report: ReembedReport = {
    from: { dimensions: current, models },
    to: { provider: target.provider, model: target.model, dimensions },
    reembedded: 0,
    swapped: false,
  }
  if (current === dimensions && models.every(model => model === target.model)) return report

  const existing = await nextColumnDimensions(db)
  if (existing !== null && existing !== dimensions) await db.execute(sql.raw('alter table mem_embeddings drop column embedding_next, drop column provider_next, drop column model_next'))
  await db.execute(sql.raw(`alter table mem_embeddings add column if not exists embedding_next vector(${dimensions}), add column if not exists provider_next text, add column if not exists model_next text`))
  // Chunks re-embedded by another model than the target in an earlier run start again.
  await db.execute(sql`update mem_embeddings set embedding_next = null where model_next is distinct from ${target.model}`)
  report.reembedded = await fill(db, embedder, dimensions, log)

  const halfPrecision = await halfPrecisionIndex(db)
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw('lock table mem_embeddings in exclusive mode'))
    report.reembedded += await fill(tx, embedder, dimensions, log)
    await tx.execute(sql.raw('drop index if exists mem_embeddings_embedding_hnsw_idx'))
    await tx.execute(sql.raw('alter table mem_embeddings drop column embedding'))
    await tx.execute(sql.raw('alter table mem_embeddings rename column embedding_next to embedding'))
    await tx.execute(sql.raw('alter table mem_embeddings alter column embedding set not null'))
    await tx.execute(sql.raw('update mem_embeddings set provider = provider_next, model = model_next'))
    await tx.execute(sql.raw('alter table mem_embeddings drop column provider_next, drop column model_next'))
    await tx.execute(sql.raw(hnswIndexDefinition(dimensions, halfPrecision)))
  })
  forgetIndexDimensions(db)
  report.swapped = true
  log(`[memory-reembed] swapped: the index now holds ${dimensions} dimensions, embedded by ${target.provider}/${target.model}`)
  return report
}
