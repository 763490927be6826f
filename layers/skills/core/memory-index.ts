// The skills in the memory's index (seed 003 §13.2: "candidates by the memory's hybrid recall
// over title + description"): one `skill` chunk per skill, kept by the vector sync's skill
// source (incremental: only a changed name or description is embedded again, a deleted skill's
// chunk removed), and the router's recall over the chunks of a person's enabled skills only.
import type { Db } from '#db/connection'
import { recall } from '#layers/memory/core/recall/engine'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { syncVectors, type SourceSyncReport } from '#layers/memory/core/vectors/sync'
import type { RecalledCandidate } from './router'

/** Brings the index's skill chunks in line with the skills table (after a create, save, import, restore or delete; at seed). */
export async function syncSkillIndex(db: Db, embedder: Embedder): Promise<SourceSyncReport> {
  const report = await syncVectors({ db, embedder, reflexDir: '' }, { sources: ['skill'] })
  return report.sources[0]!
}

const QUERY_MAX = 2000

/**
 * The memory's hybrid recall (RRF k = 60) over the chunks of `skills` — the person's enabled
 * ones — top-K, as router candidates. Read-only (no recall counters); hits below the memory's
 * relevance floor are kept: the router's thresholds decide.
 */
export async function recallSkills(
  deps: { db: Db, embedder: Embedder, log?: (line: string) => void },
  request: string,
  skills: Array<{ id: number, name: string }>,
  topK: number,
): Promise<RecalledCandidate[]> {
  const query = request.trim().slice(0, QUERY_MAX)
  if (!query || skills.length === 0) return []
  const names = new Map(skills.map(skill => [String(skill.id), skill.name]))
  const response = await recall(
    { db: deps.db, embedder: deps.embedder, log: deps.log },
    { query, k: topK, scope: ['skill'], sourceIds: [...names.keys()], readOnly: true, belowFloor: 'flag' },
  )
  return response.hits.flatMap((hit) => {
    const name = names.get(hit.sourceId)
    return name ? [{ name, lexicalRank: hit.scores.lexicalRank, vectorRank: hit.scores.semanticRank, rrf: hit.scores.rrf ?? 0 }] : []
  })
}
