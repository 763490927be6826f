// Feature 1, repeated-scar detection: each scar of the last day is compared with the past
// scars by vector similarity (their mem_embeddings rows); a cluster of at least two similar
// scars becomes ONE promotion draft in the vault inbox. The cluster's fingerprint (its oldest
// scar) is kept in learn_nightly_marks, so a second night does not draft it again. Nothing is
// promoted: the draft waits for a person.
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { learnLessons, learnNightlyMarks } from '#db/schema/learn'
import { scanSettingsFor } from '#layers/memory/core/recall/arms'
import { halfPrecisionIndex, indexDimensions } from '#layers/memory/core/vectors/dimensions'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'
import { daysBefore, type NightlyFeature } from './context'

export const REPEATED_SCARS_KEY = 'nightly_repeated_scars'
/** Cosine similarity from which two scars are "the same mistake". */
export const REPEAT_SIMILARITY = 0.85
/** Occurrences (the new scar included) that make a repeat. */
export const REPEAT_MIN_OCCURRENCES = 2
const NEIGHBOURS = 10
const SCAR_KINDS = sql`('failure', 'bug', 'convention', 'pattern')`

interface Neighbour { id: number, similarity: number }

/**
 * The nearest live scars of each fresh scar, in one query: the lateral ORDER BY is the HNSW
 * index's own expression (halfvec on PostgreSQL, migration 0029; the column on PGlite), else
 * every fresh scar costs a sequential scan; the similarity returned is the exact one.
 */
async function nearScars(db: Db, ids: string[]): Promise<Map<string, Neighbour[]>> {
  const out = new Map<string, Neighbour[]>()
  if (ids.length === 0) return out
  const half = await halfPrecisionIndex(db)
  const dimensions = half ? halfvecDimensions(await indexDimensions(db)) : 0
  const expression = (side: string) => sql.raw(half ? `${side}.embedding::halfvec(${dimensions})` : `${side}.embedding`)
  const rows = await db.transaction(async (tx) => {
    // The recall arm's scan settings (iterative scan, ef_search), for this transaction only.
    const scan = scanSettingsFor(NEIGHBOURS)
    await tx.execute(sql`select set_config('hnsw.iterative_scan', ${scan.iterativeScan}, true), set_config('hnsw.ef_search', ${String(scan.efSearch)}, true)`)
    // Materialised: else the planner may loop over the lessons outside and re-run the lateral search for each.
    return await tx.execute<{ fresh: string, id: string, similarity: number }>(sql`
      with near as materialized (
        select f.source_id as fresh, n.id, n.similarity from mem_embeddings f
        cross join lateral (
          select e.source_id as id, 1 - (e.embedding <=> f.embedding) as similarity
          from mem_embeddings e where e.source_type = 'scar' and e.source_id <> f.source_id
          order by ${expression('e')} <=> ${expression('f')} limit ${NEIGHBOURS}) n
        where f.source_type = 'scar' and f.source_id in ${ids})
      select near.fresh, near.id, near.similarity from near
      join learn_lessons l on l.id::text = near.id and l.archived_at is null and l.kind in ${SCAR_KINDS}`)
  })
  for (const row of rows) {
    const list = out.get(row.fresh) ?? []
    list.push({ id: Number(row.id), similarity: Number(row.similarity) })
    out.set(row.fresh, list)
  }
  return out
}

function halfvecDimensions(dimensions: number): number {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4000) throw new Error(`a halfvec HNSW index holds 1 to 4000 dimensions (got ${dimensions})`)
  return dimensions
}

export const repeatedScars: NightlyFeature = {
  name: 'repeated-scars',
  routingKey: REPEATED_SCARS_KEY,
  async run(ctx) {
    const since = daysBefore(ctx.now, 1)
    const fresh = await ctx.db.execute<{ id: string }>(sql`
      select l.id::text as id from learn_lessons l
      where l.kind in ${SCAR_KINDS} and l.archived_at is null and l.created_at >= ${since.toISOString()} and l.created_at < ${ctx.now.toISOString()}
        and exists (select 1 from mem_embeddings e where e.source_type = 'scar' and e.source_id = l.id::text)
      order by l.id`)
    const neighbours = await nearScars(ctx.db, fresh.map(r => r.id))
    const clusters = new Map<number, Set<number>>()
    for (const { id } of fresh) {
      const similar = (neighbours.get(id) ?? []).filter(n => n.similarity >= REPEAT_SIMILARITY)
      if (similar.length + 1 < REPEAT_MIN_OCCURRENCES) continue
      const members = new Set([Number(id), ...similar.map(n => n.id)])
      // Two fresh scars of the same cluster make one cluster: merge into any that shares a member.
      const existing = [...clusters.entries()].find(([, set]) => [...members].some(m => set.has(m)))
      if (existing) for (const m of members) existing[1].add(m)
      else clusters.set(Math.min(...members), members)
    }
    const items: Array<Record<string, unknown>> = []
    const drafts: string[] = []
    let alreadyDrafted = 0
    for (const members of clusters.values()) {
      const ids = [...members].sort((a, b) => a - b)
      const fingerprint = `scar-cluster:${ids[0]}`
      const [mark] = await ctx.db.select().from(learnNightlyMarks).where(and(eq(learnNightlyMarks.feature, 'repeated-scars'), eq(learnNightlyMarks.fingerprint, fingerprint)))
      if (mark) {
        alreadyDrafted++
        continue
      }
      const name = `nightly/repeated-scar-${ids[0]}.md`
      items.push({ fingerprint, lessonIds: ids, draft: `inbox/${name}` })
      if (ctx.dryRun) continue
      const scars = await ctx.db
        .select({
          id: learnLessons.id,
          title: learnLessons.title,
          checkAdded: learnLessons.checkAdded,
          agent: learnLessons.agent,
          createdAt: learnLessons.createdAt,
        })
        .from(learnLessons)
        .where(inArray(learnLessons.id, ids))
        .orderBy(learnLessons.id)
      const body = [
        `# Repeated scar: ${scars[0]?.title ?? `#${ids[0]}`}`,
        '',
        `The same mistake was recorded ${scars.length} times. A person decides whether it becomes a permanent rule; nothing was promoted.`,
        '',
        ...scars.map(s => `- #${s.id} (${s.createdAt.toISOString().slice(0, 10)}${s.agent ? `, ${s.agent}` : ''}): ${s.title}${s.checkAdded ? ` — check added: ${s.checkAdded}` : ''}`),
      ].join('\n')
      const path = writeInboxNote(ctx.vaultDir, { name, overwrite: true, frontmatter: { type: 'promotion-draft', source: 'nightly-consolidation', feature: 'repeated-scars', lessons: ids, created: ctx.now.toISOString() }, body })
      await ctx.db.insert(learnNightlyMarks).values({ feature: 'repeated-scars', fingerprint, ref: path }).onConflictDoNothing()
      drafts.push(path)
    }
    return {
      counts: {
        freshScars: fresh.length,
        clusters: clusters.size,
        alreadyDrafted,
        drafted: drafts.length,
        wouldDraft: ctx.dryRun ? items.length : 0,
      },
      items,
      drafts,
    }
  },
}
