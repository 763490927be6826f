// Link-aware recall (issue 37): a question whose answer spans two notes joined by a wiki link
// finds the first by its words and the second through the link. The best notes above the
// floor are expanded by one hop over the vault's link graph (mem_notes.links, kept by the note
// indexer: outgoing links and the notes linking back), bounded in rows and in time, and each
// neighbour joins the results with its parent's score decayed.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { MEM_VAULT_SPACES } from '#db/schema/mem'
import { withDeadline } from '#layers/base/core/deadline'
import { filters, type ArmFilter } from './arms'
import type { RecallHit } from './types'

/** The best notes above the floor whose links are followed. */
export const LINK_SEEDS = 3
/** Neighbours read at most, whatever the seeds' links. */
export const LINK_MAX_ROWS = 10
/** A neighbour's score: its parent's × this (one hop away, it matched nothing of the query itself). */
export const LINK_DECAY = 0.5
/** The expansion's own statement may take this long; past it, recall answers without it. */
export const LINK_TIMEOUT_MS = 250

export interface LinkNeighbour {
  parent: string
  sourceId: string
  title: string
  snippet: string
  agent: string | null
}

/** The sub-spaces a link written without one may point into (a path is `space/name.md`). */
const SPACES = sql.raw(`array[${MEM_VAULT_SPACES.map(space => `'${space}'`).join(', ')}]`)

/**
 * The notes one link away from `seeds` (note paths), in both directions, with the seed they
 * hang from; the arm's filter applies to them. Both directions are index lookups, so the
 * expansion costs the same at 100 notes and at 100,000: a seed's links become candidate
 * paths (the target with `.md`, with and without a sub-space: mem_notes' key), and the notes
 * linking to a seed are found by its names as written (its file name, its path with and
 * without the sub-space, its title) on the links' GIN index. A link naming a note by its
 * title, or in another case, leads nowhere here (the hygiene report lists links that lead
 * nowhere at all).
 */
export async function linkedNotes(db: Db, seeds: string[], exclude: string[], filter: ArmFilter): Promise<LinkNeighbour[]> {
  if (seeds.length === 0) return []
  const seedList = sql.join(seeds.map(seed => sql`${seed}`), sql`, `)
  const excluded = sql.join([...seeds, ...exclude].map(id => sql`${id}`), sql`, `)
  const rows = await db.execute<{ parent: string, source_id: string, title: string, snippet: string, agent: string | null }>(sql`
    with seeds as (
      select s.path, s.position, p.title, p.links,
        array[regexp_replace(s.path, '\\.md$', ''), regexp_replace(regexp_replace(s.path, '\\.md$', ''), '^[^/]+/', ''), regexp_replace(regexp_replace(s.path, '\\.md$', ''), '^.*/', ''), p.title] as names
      from unnest(array[${seedList}]::text[]) with ordinality as s(path, position) join mem_notes p on p.path = s.path
    ),
    outgoing as (
      select distinct seeds.path as parent, seeds.position, candidate as path
      from seeds, unnest(seeds.links) as target, lateral (
        select regexp_replace(trim(target), '\\.md$', '') || '.md' as candidate
        union all select space || '/' || regexp_replace(regexp_replace(trim(target), '\\.md$', ''), '^[^/]+/', '') || '.md' from unnest(${SPACES}::text[]) as space
      ) c
    ),
    neighbours as (
      select distinct on (n.path) n.path, x.parent, x.position
      from (
        select o.parent, o.position, o.path from outgoing o
        union all
        select seeds.path, seeds.position, n.path from seeds join mem_notes n on n.links && seeds.names
      ) x join mem_notes n on n.path = x.path
      where n.path not in (${excluded})
      order by n.path, x.position
    )
    select nb.parent, e.source_id, e.title, left(e.content, 300) as snippet, e.agent
    from neighbours nb join mem_embeddings e on e.source_type = 'note' and e.source_id = nb.path
    where true ${filters(filter)}
    order by nb.position, e.source_id
    limit ${LINK_MAX_ROWS}`)
  return [...rows].map(row => ({ parent: row.parent, sourceId: row.source_id, title: row.title, snippet: row.snippet, agent: row.agent }))
}

/**
 * The expansion, or `fallback` when it overruns its time or fails (logged): the links add to
 * an answer, they never hold it up nor fail it.
 */
export async function withinTime<T>(work: Promise<T>, fallback: T, log: (line: string) => void, ms = LINK_TIMEOUT_MS): Promise<T> {
  const settled = work.catch((error: unknown) => {
    log(`[recall] the link expansion failed (${(error as Error).message}): answered without it`)
    return fallback
  })
  return await withDeadline(settled, ms, () => {
    log(`[recall] the link expansion took over ${ms} ms: answered without it`)
    return fallback
  })
}

/**
 * The neighbours fused in: each placed by its parent's final score × LINK_DECAY among the hits
 * above the floor (it stands on its parent's relevance), marked with the parent it came from.
 */
export function fuseNeighbours(relevant: RecallHit[], neighbours: LinkNeighbour[], link: (id: string) => string | null): RecallHit[] {
  const parents = new Map(relevant.map(hit => [`${hit.sourceType}:${hit.sourceId}`, hit]))
  const added: RecallHit[] = neighbours.flatMap((neighbour) => {
    const parent = parents.get(`note:${neighbour.parent}`)
    if (!parent) return []
    const score = parent.scores.final * LINK_DECAY
    return [
      {
        rank: 0,
        sourceType: 'note' as const,
        sourceId: neighbour.sourceId,
        title: neighbour.title,
        snippet: neighbour.snippet,
        agent: neighbour.agent,
        link: link(neighbour.sourceId),
        scores: {
          semantic: null,
          semanticRank: null,
          lexical: null,
          lexicalRank: null,
          fuzzy: false,
          lexicalWords: null,
          rrf: null,
          base: score,
          final: score,
          rerank: null,
          linkedFrom: neighbour.parent,
        },
        lowConfidence: false,
      },
    ]
  })
  return [...relevant, ...added]
    .map((hit, order) => ({ hit, order }))
    .sort((a, b) => b.hit.scores.final - a.hit.scores.final || a.order - b.order)
    .map(({ hit }) => hit)
}
