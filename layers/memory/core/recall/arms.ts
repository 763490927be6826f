// The two arms of recall as SQL over mem_embeddings: the semantic arm orders by cosine
// distance on the HNSW index (pgvector 0.8 iterative index scans, set per transaction, so a
// selective filter still yields its rows), the lexical arm ranks `tsv @@ to_tsquery(
// 'synedre_french', 'w1 | w2 …')` by ts_rank (unaccented French stems). Both honour the scope, the agent filter, and leave out lessons
// archived by the forgetting curve.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../../../db/client'
import type { SourceType } from '../sources'
import { SOURCE_TYPES } from '../sources'
import type { Candidate } from './types'

export interface ArmFilter {
  /** null = every source type. */
  types: SourceType[] | null
  agent: string | null
  /** A client tenant: its own chunks and the shared ones (no tenant), never another tenant's. */
  tenant?: string | null
  limit: number
}

/** The candidate list of an HNSW scan: above pgvector's default 40 for a better recall (see the benchmark). */
export const EF_SEARCH_MIN = 100

/** hnsw.ef_search for a fetch of `limit` rows (ef_search caps what one index scan can answer). */
export function efSearchFor(limit: number): number {
  return Math.min(1000, Math.max(EF_SEARCH_MIN, limit))
}

function filters(filter: ArmFilter): SQL {
  const parts: SQL[] = []
  // A note whose front matter says `type: doctrine` answers the doctrine scope too.
  if (filter.types && filter.types.length < SOURCE_TYPES.length) parts.push(sql`and (e.source_type in ${filter.types} or (e.source_type = 'note' and e.metadata->>'scope' in ${filter.types}))`)
  if (filter.agent) parts.push(sql`and e.agent = ${filter.agent}`)
  if (filter.tenant) parts.push(sql`and (e.tenant is null or e.tenant = ${filter.tenant})`)
  // Archived lessons are invisible to recall. A scalar sub-select (not NOT EXISTS, which the
  // planner turns into an anti-join that bypasses the HNSW index) checked per candidate;
  // the cast only ever sees numeric ids.
  parts.push(sql`and (e.source_type not in ('scar', 'victory') or coalesce((select l.archived_at is null from learn_lessons l where l.id = (case when e.source_id ~ '^[0-9]{1,18}$' then e.source_id::bigint end)), true))`)
  return sql.join(parts, sql` `)
}

export function semanticQuery(vector: string, model: string, filter: ArmFilter): SQL {
  return sql`with candidates as materialized (
    select e.source_type, e.source_id, e.title, left(e.content, 300) as snippet, e.agent, e.embedding <=> ${vector}::vector as distance
    from mem_embeddings e
    where e.model = ${model} ${filters(filter)}
    order by e.embedding <=> ${vector}::vector
    limit ${filter.limit}
  )
  select source_type, source_id, title, snippet, agent, (1 - distance)::float8 as score
  from candidates order by distance, source_type, source_id`
}

/**
 * Rows matching the tsquery by ts_rank, each with how many of the query's stems it holds
 * (`matched` of `total`): the relevance floor's lexical test (floor.ts).
 */
function rankedByText(query: SQL, filter: ArmFilter): SQL {
  return sql`with qq as (select ${query} as q),
  r as (
    select e.source_type, e.source_id, e.title, left(e.content, 300) as snippet, e.agent, ts_rank(e.tsv, qq.q)::float8 as score, e.tsv
    from mem_embeddings e, qq
    where e.tsv @@ qq.q ${filters(filter)}
    order by score desc, e.source_type, e.source_id
    limit ${filter.limit}
  ),
  s as (select array(select distinct m[1] from qq, regexp_matches(qq.q::text, '''([^'']+)''', 'g') as m) as stems)
  select r.source_type, r.source_id, r.title, r.snippet, r.agent, r.score,
    (select count(*) from unnest(tsvector_to_array(r.tsv)) as l where l = any(s.stems))::int as matched, cardinality(s.stems) as total
  from r, s
  order by r.score desc, r.source_type, r.source_id`
}

export function lexicalQuery(tsquery: string, filter: ArmFilter): SQL {
  return rankedByText(sql`to_tsquery('synedre_french'::regconfig, ${tsquery})`, filter)
}

/** The fuzzy search: stems already normalised (fuzzy.ts), as a tsquery literal. */
export function fuzzyQuery(stems: string, filter: ArmFilter): SQL {
  return rankedByText(sql`cast(${stems} as tsquery)`, filter)
}

type Row = {
  source_type: SourceType
  source_id: string
  title: string
  snippet: string
  agent: string | null
  score: number
  /** Lexical rows: the query's stems the row holds, of all the query's stems. */
  matched?: number
  total?: number
}

function toCandidates(rows: Iterable<Row>): Candidate[] {
  return [...rows].map(row => ({
    sourceType: row.source_type,
    sourceId: row.source_id,
    title: row.title,
    snippet: row.snippet,
    agent: row.agent,
    score: Number(row.score),
    ...(row.total === undefined ? {} : { words: { matched: Number(row.matched), total: Number(row.total) } }),
  }))
}

/** The transaction-local settings of the semantic arm. */
export function semanticSettings(limit: number): SQL[] {
  return [sql.raw(`set local hnsw.iterative_scan = relaxed_order`), sql.raw(`set local hnsw.ef_search = ${efSearchFor(limit)}`)]
}

export async function semanticArm(db: Db, vector: string, model: string, filter: ArmFilter): Promise<Candidate[]> {
  return await db.transaction(async (tx) => {
    for (const setting of semanticSettings(filter.limit)) await tx.execute(setting)
    return toCandidates(await tx.execute<Row>(semanticQuery(vector, model, filter)))
  })
}

export async function lexicalArm(db: Db, tsquery: string | null, filter: ArmFilter): Promise<Candidate[]> {
  if (!tsquery) return []
  return toCandidates(await db.execute<Row>(lexicalQuery(tsquery, filter)))
}

/** The stems nearest to the misspelt words, searched; their hits are marked fuzzy. */
export async function fuzzyArm(db: Db, stems: string | null, filter: ArmFilter): Promise<Candidate[]> {
  if (!stems) return []
  return toCandidates(await db.execute<Row>(fuzzyQuery(stems, filter))).map(candidate => ({ ...candidate, fuzzy: true }))
}
