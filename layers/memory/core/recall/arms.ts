// The two arms of recall as SQL over mem_embeddings: the semantic arm walks the HNSW index
// — on PostgreSQL over the half-precision copy of the vectors (migration 0029: a third of the
// index's size, faster distances) — with pgvector 0.8 iterative index scans, set by the
// statement itself (one round trip, see semanticQuery), so a selective filter still yields
// its rows, then re-ranks what it fetched by the exact full-precision distance; the lexical arm ranks `tsv @@ to_tsquery('synedre_french',
// 'w1 | w2 …')` by ts_rank (unaccented French stems), leaving out of the match the words too
// common to tell chunks apart (see lexicalQuery). Both honour the scope, the agent filter,
// and leave out lessons archived by the forgetting curve.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { foldedText } from '#db/schema/mem'
import type { SourceType } from '../sources'
import { SOURCE_TYPES } from '../sources'
import { FUZZY_MIN_LENGTH, missingFromLexicon } from './fuzzy'
import type { Candidate } from './types'

export interface ArmFilter {
  /** null = every source type. */
  types: SourceType[] | null
  agent: string | null
  /** A client tenant: its own chunks and the shared ones (no tenant), never another tenant's. */
  tenant?: string | null
  /** A set of tenants (an allowlisted run): their chunks and the shared ones; an empty set, the shared ones only. */
  tenants?: readonly string[] | null
  /**
   * Only these source ids (the skill router: a person's enabled skills). Skills are recalled
   * only this way — a private skill never surfaces in anyone else's memory recall.
   */
  sourceIds?: string[] | null
  limit: number
}

/**
 * The candidate list of an HNSW scan, at least. 60 since the index is built with
 * ef_construction 128 (HNSW_BUILD): on the bench's tie-free 100,000 vectors, strict recall@10
 * read 1.000 at 60 and 0.997 at 40, where the default build read 0.91 at 60 and 0.94–0.99 at
 * 100 from one build to the next; and the bench's chunks recall p50 19 → 16 ms against 100.
 */
export const EF_SEARCH_MIN = 60

/** hnsw.ef_search for a fetch of `limit` rows (ef_search caps what one index scan can answer). */
export function efSearchFor(limit: number): number {
  return Math.min(1000, Math.max(EF_SEARCH_MIN, limit))
}

/** A PostgreSQL text[] literal: every element double-quoted, backslashes and quotes escaped. */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map(value => `"${value.replace(/[\\"]/g, match => `\\${match}`)}"`).join(',')}}`
}

/** A lesson's id from a chunk's source id; the cast only ever sees numeric ids. */
function lessonIdOf(alias: string): string {
  return `(case when ${alias}.source_id ~ '^[0-9]{1,18}$' then ${alias}.source_id::bigint end)`
}

/**
 * A scar's importance and creation time, read with the arm's own rows for the re-rank (the
 * alias `lesson`): one statement fewer per recall than a lookup of the candidates afterwards.
 */
function lessonJoin(alias: string): SQL {
  return sql.raw(`left join learn_lessons lesson on ${alias}.source_type = 'scar' and lesson.id = ${lessonIdOf(alias)}`)
}

const LESSON_COLUMNS = sql.raw('lesson.importance as lesson_importance, lesson.created_at as lesson_created_at, lesson.id is not null as is_lesson')

export function filters(filter: ArmFilter): SQL {
  const parts: SQL[] = []
  // A note whose front matter says `type: doctrine` answers the doctrine scope too.
  if (filter.types && filter.types.length < SOURCE_TYPES.length) parts.push(sql`and (e.source_type in ${filter.types} or (e.source_type = 'note' and e.metadata->>'scope' in ${filter.types}))`)
  if (filter.agent) parts.push(sql`and e.agent = ${filter.agent}`)
  if (filter.tenant) parts.push(sql`and (e.tenant is null or e.tenant = ${filter.tenant})`)
  if (filter.tenants) parts.push(filter.tenants.length > 0 ? sql`and (e.tenant is null or e.tenant in ${[...filter.tenants]})` : sql`and e.tenant is null`)
  if (!filter.sourceIds) parts.push(sql`and e.source_type <> 'skill'`)
  else if (filter.sourceIds.length === 0) parts.push(sql`and false`)
  // One parameter (a text[]), joined as a set: `= any($1)` under a prepared statement's generic plan compares each row with every id.
  // The type named too, so the (source_type, source_id) btree drives the scan over just those rows.
  else parts.push(sql`and e.source_id in (select unnest(${textArrayLiteral(filter.sourceIds)}::text[])) ${filter.types ? sql`and e.source_type in ${filter.types}` : sql``}`)
  // Archived lessons are invisible to recall. A scalar sub-select (not NOT EXISTS, which the
  // planner turns into an anti-join that bypasses the HNSW index) checked per candidate.
  parts.push(sql`and (e.source_type not in ('scar', 'victory') or coalesce((select l.archived_at is null from learn_lessons l where l.id = ${sql.raw(lessonIdOf('e'))}), true))`)
  return sql.join(parts, sql` `)
}

/** The index's expression: the vector cast to halfvec of the column's dimension (migration 0029). */
function halfvecType(dimensions: number): string {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4000) throw new Error(`a halfvec HNSW index holds 1 to 4000 dimensions (got ${dimensions})`)
  return `halfvec(${dimensions})`
}

export function halfvecExpression(dimensions: number): string {
  return `(embedding::${halfvecType(dimensions)})`
}

/**
 * How the PostgreSQL index is built (migration 0039): twice pgvector's default
 * ef_construction, a better-connected graph that answers a small ef_search (EF_SEARCH_MIN)
 * with a steady recall; the build takes about twice as long (100,000 chunks: ~2 → ~4 min).
 * PGlite keeps the defaults: its WebAssembly inserts would pay the same factor at every sync.
 */
export const HNSW_BUILD = 'with (m = 16, ef_construction = 128)'

/** The HNSW index's definition for a column of `dimensions`: the migration's, and the re-embed's after a swap. */
export function hnswIndexDefinition(dimensions: number, halfPrecision: boolean): string {
  return halfPrecision
    ? `create index mem_embeddings_embedding_hnsw_idx on mem_embeddings using hnsw (${halfvecExpression(dimensions)} halfvec_cosine_ops) ${HNSW_BUILD}`
    : `create index mem_embeddings_embedding_hnsw_idx on mem_embeddings using hnsw (embedding vector_cosine_ops)`
}

/** The index the semantic arm walks: the column's dimension, and whether it holds half precision. */
export interface IndexLayout {
  dimensions: number
  halfPrecision: boolean
}

/** How the HNSW scan walks: pgvector's iterative scan mode and its candidate list. */
export interface ScanSettings {
  iterativeScan: 'relaxed_order' | 'strict_order' | 'off'
  efSearch: number
}

/** The semantic arm's scan: iterative (a selective filter still yields its rows), ef_search covering the fetch. */
export function scanSettingsFor(limit: number): ScanSettings {
  return { iterativeScan: 'relaxed_order', efSearch: efSearchFor(limit) }
}

/**
 * The nearest chunks in the index's order, then ordered by the exact distance (a
 * half-precision order is off by rounding in the last digits: the re-rank restores it).
 * The scan's settings are applied by the statement itself, transaction-local
 * (`set_config(…, true)`: they end with the statement's implicit transaction, or with the
 * caller's): an uncorrelated sub-select is a one-time filter evaluated before the index scan
 * fetches its first row, which is when pgvector reads them — one round trip instead of
 * begin, two SETs, the query and commit. On PGlite, whose connections share one backend,
 * nothing outlives the statement either.
 */
export function semanticQuery(
  vector: string,
  model: string,
  filter: ArmFilter,
  index: IndexLayout,
  scan: ScanSettings = scanSettingsFor(filter.limit),
): SQL {
  if (exactScan(filter)) return exactSemanticQuery(vector, model, filter)
  const order = index.halfPrecision
    ? sql`e.embedding::${sql.raw(halfvecType(index.dimensions))} <=> ${vector}::${sql.raw(halfvecType(index.dimensions))}`
    : sql`e.embedding <=> ${vector}::vector`
  return sql`with candidates as materialized (
    select e.source_type, e.source_id, e.title, left(e.content, 300) as snippet, e.agent, e.embedding <=> ${vector}::vector as distance
    from mem_embeddings e
    where (select set_config('hnsw.iterative_scan', ${scan.iterativeScan}, true) || set_config('hnsw.ef_search', ${String(scan.efSearch)}, true)) is not null
      and e.model = ${model} ${filters(filter)}
    order by ${order}
    limit ${filter.limit}
  )
  select c.source_type, c.source_id, c.title, c.snippet, c.agent, (1 - c.distance)::float8 as score, ${LESSON_COLUMNS}
  from candidates c ${lessonJoin('c')}
  order by c.distance, c.source_type, c.source_id`
}

/**
 * An explicit set of source ids (the skill router: a person's ~1,000 enabled skills) is read
 * whole through the btree and ranked by the exact distance: a few milliseconds, exact, where
 * the global HNSW walk with a 1,000-id filter cost tens (issue 21's bench). On PGlite too:
 * interleaved on the bench's data, the exact arm was no slower than the walk (p50 106 vs 126 ms).
 */
export const EXACT_SCAN_MAX_IDS = 5000

export function exactScan(filter: ArmFilter): boolean {
  return !!filter.sourceIds && filter.sourceIds.length <= EXACT_SCAN_MAX_IDS
}

/** The exact arm: the rows kept by the filter materialized first, so no index order (HNSW) is ever walked. */
function exactSemanticQuery(vector: string, model: string, filter: ArmFilter): SQL {
  return sql`with candidates as materialized (
    select e.id, e.source_type, e.source_id, e.embedding <=> ${vector}::vector as distance
    from mem_embeddings e
    where e.model = ${model} ${filters(filter)}
  ),
  nearest as (select id, distance from candidates order by distance, source_type, source_id limit ${filter.limit})
  select e.source_type, e.source_id, e.title, left(e.content, 300) as snippet, e.agent, (1 - n.distance)::float8 as score, ${LESSON_COLUMNS}
  from nearest n join mem_embeddings e on e.id = n.id ${lessonJoin('e')}
  order by n.distance, e.source_type, e.source_id`
}

/**
 * Rows matching `query` by ts_rank (sorted on their keys alone: the title, snippet and words
 * are read for the rows kept, not carried through the sort for every match), each with how
 * many of the query's terms it holds (`matched` of `total`): the relevance floor's lexical
 * test (floor.ts). `head` defines `qq(q)` and `counted(q)`, one tsquery per term (a word's
 * stems OR-ed, an identifier's phrase); `unknown` (a boolean over those CTEs) says whether a
 * query word's stem is missing from the vault, so the typo search runs only then. The
 * statement always returns a row at least (one with no source when nothing matched) to carry
 * that answer.
 */
function rankedByText(head: SQL, unknown: SQL, filter: ArmFilter): SQL {
  return sql`with ${head},
  ranked as (
    select e.id, e.source_type, e.source_id, ts_rank(e.tsv, qq.q)::float8 as score
    from mem_embeddings e, qq
    where e.tsv @@ qq.q ${filters(filter)}
    order by score desc, e.source_type, e.source_id
    limit ${filter.limit}
  ),
  r as (
    select e.source_type, e.source_id, e.title, left(e.content, 300) as snippet, e.agent, ranked.score, e.tsv
    from ranked join mem_embeddings e on e.id = ranked.id
  ),
  s as (select (select count(*) from counted)::int as total, ${unknown} as unknown)
  select r.source_type, r.source_id, r.title, r.snippet, r.agent, r.score,
    (select count(*) from counted c where r.tsv @@ c.q)::int as matched, s.total, s.unknown, ${LESSON_COLUMNS}
  from s left join r on true ${lessonJoin('r')}
  order by r.score desc, r.source_type, r.source_id`
}

/**
 * Chunks a query word may match before it is too common to tell chunks apart: ts_rank reads
 * every matching row, so a word found in a fifth of 300,000 chunks would cost a recall
 * ~100 ms and rank nothing (an IDF near zero). Estimated from the planner's statistics of
 * the column (pg_stats: the share of rows holding each frequent stem, kept by ANALYZE);
 * without statistics (a small or fresh index) every word is matched.
 */
export const LEXICAL_MAX_WORD_ROWS = 1500
/** How long a process keeps the common stems it read (statistics change at ANALYZE only). */
export const COMMON_STEMS_TTL_MS = 60_000

const commonStemsCache = new WeakMap<object, { at: number, stems: Record<string, number> }>()

/**
 * The stems in more than LEXICAL_MAX_WORD_ROWS chunks, with their estimated row counts: read
 * from pg_stats at most once a minute per database handle (planning the view on every
 * recall would cost more than the search).
 */
export async function commonStems(db: Db, now = Date.now()): Promise<Record<string, number>> {
  const cached = commonStemsCache.get(db)
  if (cached && now - cached.at < COMMON_STEMS_TTL_MS) return cached.stems
  const rows = await db.execute<{ stem: string, rows: number }>(sql`
    select s.stem, s.freq * greatest(c.reltuples, 0)::float8 as rows
    from pg_class c, pg_stats st, unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) as s(stem, freq)
    where c.oid = 'mem_embeddings'::regclass and st.schemaname = current_schema() and st.tablename = 'mem_embeddings' and st.attname = 'tsv'
      and s.stem is not null and s.freq * greatest(c.reltuples, 0) > ${LEXICAL_MAX_WORD_ROWS}`)
  const stems = Object.fromEntries([...rows].map(row => [row.stem, Math.round(Number(row.rows))]))
  commonStemsCache.set(db, { at: now, stems })
  return stems
}

/**
 * A one-word term's second stem (an SQL expression over the term's column): the French
 * stemmer's own, accents folded, as the column holds it beside synedre_french's (migration
 * 0040: "bloquées" is 'bloque' to synedre_french and 'bloqu' to the French stemmer, as
 * "bloqué" is to both). Null for an identifier's phrase or a stop word.
 */
export function alternativeStem(term: string): string {
  const french = `to_tsquery('french'::regconfig, ${term})`
  return `case when numnode(${french}) = 1 then ${foldedText(french)}::tsquery end`
}

/**
 * The lexical arm over the query's terms (tsTerm of each word; a word asks for both its
 * stems, alternativeStem): the terms that are not common (commonStems) OR-ed; when every
 * term is common, all of them AND-ed (the chunks holding every common word, far fewer). A
 * phrase is as common as its rarest part. The floor still counts every term, matched or not.
 * A one-word term neither of whose stems the vault's lexicon holds (FUZZY_MIN_LENGTH letters
 * or more: what fuzzy.ts would expand) sets `unknown` (a key probe per stem, missingFromLexicon).
 */
export function lexicalQuery(terms: string[], filter: ArmFilter, common: Record<string, number> = {}): SQL {
  return rankedByText(sql`words as (
    select x.exact, x.alternative, t.position
    from jsonb_array_elements_text(${JSON.stringify(terms)}::jsonb) with ordinality as t(term, position),
      lateral (select to_tsquery('synedre_french'::regconfig, t.term) as exact, ${sql.raw(alternativeStem('t.term'))} as alternative) x
    where numnode(x.exact) > 0
  ),
  terms as (
    select case when numnode(w.exact) = 1 and w.alternative is not null and w.alternative <> w.exact then w.exact || w.alternative else w.exact end as q,
      case when numnode(w.exact) = 1 then querytree(w.exact) end as stem,
      case when numnode(w.exact) = 1 then querytree(w.alternative) end as alternative,
      w.position
    from words w
  ),
  estimated as (
    select t.q, t.position, coalesce((
      select min(coalesce((${JSON.stringify(common)}::jsonb ->> m[1])::float8, 0)) from regexp_matches(t.q::text, '''([^'']+)''', 'g') as m
    ), 0) as rows
    from terms t
  ),
  qq as (
    select coalesce(
      (select string_agg('(' || q::text || ')', ' | ' order by position) from estimated where rows <= ${LEXICAL_MAX_WORD_ROWS}),
      (select string_agg('(' || q::text || ')', ' & ' order by position) from estimated)
    )::tsquery as q
  ),
  counted as (select q from terms)`, sql`exists (
    select 1 from terms t, regexp_matches(t.stem, '^''([^'']+)''$') as m
    where length(m[1]) >= ${FUZZY_MIN_LENGTH} and ${missingFromLexicon(sql`m[1]`)}
      and not exists (select 1 from regexp_matches(coalesce(t.alternative, ''), '^''([^'']+)''$') as a where not (${missingFromLexicon(sql`a[1]`)}))
  )`, filter)
}

/** The fuzzy search: stems already normalised (fuzzy.ts), as a tsquery literal: one term (a fuzzy hit is never above the floor). */
export function fuzzyQuery(stems: string, filter: ArmFilter): SQL {
  return rankedByText(sql`qq as (select cast(${stems} as tsquery) as q), counted as (select q from qq)`, sql`false`, filter)
}

type Row = {
  /** Null on the lexical statement's row that only carries `unknown`. */
  source_type: SourceType | null
  source_id: string
  title: string
  snippet: string
  agent: string | null
  score: number
  /** Lexical rows: the query's stems the row holds, of all the query's stems. */
  matched?: number
  total?: number
  /** Lexical rows: a query word's stem is missing from the vault. */
  unknown?: boolean
  lesson_importance: number | null
  lesson_created_at: Date | string | null
  is_lesson: boolean
}

function toCandidates(rows: Iterable<Row>): Candidate[] {
  return [...rows]
    .filter(row => row.source_type !== null)
    .map(row => ({
      sourceType: row.source_type!,
      sourceId: row.source_id,
      title: row.title,
      snippet: row.snippet,
      agent: row.agent,
      score: Number(row.score),
      ...(row.total === undefined ? {} : { words: { matched: Number(row.matched), total: Number(row.total) } }),
      ...(row.is_lesson
        ? {
            lesson: {
              importance: row.lesson_importance === null ? null : Number(row.lesson_importance),
              createdAt: new Date(row.lesson_created_at!),
            },
          }
        : {}),
    }))
}

export async function semanticArm(db: Db, vector: string, model: string, filter: ArmFilter, index: IndexLayout): Promise<Candidate[]> {
  return toCandidates(await db.execute<Row>(semanticQuery(vector, model, filter, index)))
}

export interface LexicalResult {
  candidates: Candidate[]
  /** A query word's stem is missing from the vault: a typo, perhaps (fuzzy.ts expands it). */
  unknownStems: boolean
}

export async function lexicalArm(db: Db, terms: string[], filter: ArmFilter): Promise<LexicalResult> {
  if (terms.length === 0) return { candidates: [], unknownStems: false }
  const rows = [...await db.execute<Row>(lexicalQuery(terms, filter, await commonStems(db)))]
  return { candidates: toCandidates(rows), unknownStems: rows.some(row => row.unknown === true) }
}

/** The stems nearest to the misspelt words, searched; their hits are marked fuzzy. */
export async function fuzzyArm(db: Db, stems: string | null, filter: ArmFilter): Promise<Candidate[]> {
  if (!stems) return []
  return toCandidates(await db.execute<Row>(fuzzyQuery(stems, filter))).map(candidate => ({ ...candidate, fuzzy: true }))
}
