// The skill router (seed 003 §13.2, issue 21 Deliver 3). Candidates come from a hybrid recall
// over name + description, fused by RRF (k = 60), top 8: in the hub the memory's own recall
// over the index's `skill` chunks, restricted to the person's enabled skills (RouteInput.recall,
// wired by port.ts); without it, the same fusion in process (a lexical arm, BM25 over stems, and
// a vector arm, the offline embedder) — the calibration set's reference. Thresholds on the best
// candidate's match score then decide deterministically: at or above `high` the best are
// applied (at most two automatic skills), between `low` and `high` the run's model chooses
// among the candidates (offline: none), below `low` none. Skills forced with `/name` are never
// dropped and do not count against the cap. Every decision is returned with its scores so the
// engine writes it as a run step.
import { reciprocalRankFusion } from '#layers/memory/core/recall/fusion'
import { cosine, stems, vectorOf } from './text'

export interface RoutableSkill { id: number, name: string, description: string }

export interface RouterSettings {
  /** Match score at or above which the best candidates are applied without asking the model. */
  high: number
  /** Match score below which no skill is applied. */
  low: number
  /** Candidates kept after fusion. */
  topK: number
  /** Automatic skills per run (forced ones are not counted). */
  maxAuto: number
}

/** Documented defaults (docs/agents-and-skills.md): calibrated on the router test set (layers/skills/tests). */
export const DEFAULT_ROUTER_SETTINGS: RouterSettings = { high: 0.45, low: 0.2, topK: 8, maxAuto: 2 }

interface IndexedSkill extends RoutableSkill { stems: Map<string, number>, nameStems: string[], length: number, vector: Float64Array }

export interface SkillIndex {
  skills: IndexedSkill[]
  byName: Map<string, IndexedSkill>
  /** Document frequency of each stem. */
  df: Map<string, number>
  averageLength: number
}

export function buildSkillIndex(list: RoutableSkill[]): SkillIndex {
  const df = new Map<string, number>()
  const indexed = list.map((skill) => {
    const text = `${skill.name.replace(/-/g, ' ')} ${skill.description}`
    const counts = new Map<string, number>()
    for (const s of stems(text)) counts.set(s, (counts.get(s) ?? 0) + 1)
    for (const s of counts.keys()) df.set(s, (df.get(s) ?? 0) + 1)
    return { ...skill, stems: counts, nameStems: [...new Set(stems(skill.name.replace(/-/g, ' ')))], length: [...counts.values()].reduce((a, b) => a + b, 0), vector: vectorOf(text) }
  })
  const averageLength = indexed.reduce((sum, s) => sum + s.length, 0) / Math.max(1, indexed.length)
  return { skills: indexed, byName: new Map(indexed.map(s => [s.name, s])), df, averageLength }
}

export interface Candidate {
  name: string
  id: number
  /**
   * The match score the thresholds read: 0.6 × coverage + 0.4 × cosine, coverage being the
   * better of the idf-weighted share of the request's words the skill covers and the share of
   * the skill's name the request says (so context around "triage this bug report" does not
   * hide the skill it names).
   */
  score: number
  lexicalRank: number | null
  vectorRank: number | null
  rrf: number
}

const K1 = 1.2
const B = 0.75

function idf(index: SkillIndex, term: string): number {
  const n = index.skills.length
  const d = index.df.get(term) ?? 0
  return Math.log(1 + (n - d + 0.5) / (d + 0.5))
}

interface Query { terms: string[], termSet: Set<string>, weights: number[], totalWeight: number, vector: Float64Array }

function queryOf(index: SkillIndex, request: string): Query {
  const terms = [...new Set(stems(request))]
  const weights = terms.map(term => idf(index, term))
  return { terms, termSet: new Set(terms), weights, totalWeight: weights.reduce((a, b) => a + b, 0), vector: vectorOf(request) }
}

/** BM25 of a skill for the query, and its coverage (see Candidate.score); 0 and 0 when no word matches. */
function lexicalMatch(index: SkillIndex, query: Query, skill: IndexedSkill): { bm25: number, coverage: number } {
  let bm25 = 0
  let covered = 0
  query.terms.forEach((term, i) => {
    const tf = skill.stems.get(term)
    if (!tf) return
    covered += query.weights[i]!
    bm25 += query.weights[i]! * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * skill.length / index.averageLength))
  })
  if (bm25 === 0) return { bm25, coverage: 0 }
  const nameWeight = skill.nameStems.reduce((sum, s) => sum + idf(index, s), 0)
  const said = skill.nameStems.reduce((sum, s) => sum + (query.termSet.has(s) ? idf(index, s) : 0), 0)
  // Only a name said (nearly) whole counts: one shared verb ("prepare") is not a match.
  const named = nameWeight > 0 && said / nameWeight >= 0.75 ? said / nameWeight : 0
  return { bm25, coverage: Math.max(query.totalWeight > 0 ? covered / query.totalWeight : 0, named) }
}

const matchScore = (coverage: number, cos: number) => round(0.6 * coverage + 0.4 * Math.max(0, cos))

const byScore = (a: Candidate, b: Candidate) => b.score - a.score || b.rrf - a.rrf || (a.name < b.name ? -1 : 1)

/** A candidate of the memory's recall (scope `skill`): the skill's name and its fused ranks. */
export interface RecalledCandidate { name: string, lexicalRank: number | null, vectorRank: number | null, rrf: number }

/** The memory's hybrid recall over the enabled skills' chunks, top-K by RRF (k = 60), `exclude`d names left out. */
export type SkillRecall = (request: string, topK: number, exclude: Set<string>) => Promise<RecalledCandidate[]>

/** The recall's candidates with the match score the thresholds read; names the index does not hold are left out. */
export function scoreRecalled(
  index: SkillIndex,
  request: string,
  recalled: RecalledCandidate[],
  settings: RouterSettings = DEFAULT_ROUTER_SETTINGS,
  exclude: Set<string> = new Set(),
): Candidate[] {
  if (index.skills.length === 0) return []
  const query = queryOf(index, request)
  return recalled
    .flatMap((entry) => {
      const skill = index.byName.get(entry.name)
      if (!skill || exclude.has(entry.name)) return []
      const { coverage } = lexicalMatch(index, query, skill)
      return [
        {
          name: skill.name,
          id: skill.id,
          score: matchScore(coverage, cosine(query.vector, skill.vector)),
          lexicalRank: entry.lexicalRank,
          vectorRank: entry.vectorRank,
          rrf: round(entry.rrf),
        },
      ]
    })
    .slice(0, settings.topK)
    .sort(byScore)
}

/** The hybrid recall: top-K candidates by RRF of the lexical and vector arms, each with its match score. */
export function candidatesFor(
  index: SkillIndex,
  request: string,
  settings: RouterSettings = DEFAULT_ROUTER_SETTINGS,
  exclude: Set<string> = new Set(),
): Candidate[] {
  const query = queryOf(index, request)
  if (query.terms.length === 0 || index.skills.length === 0) return []
  const lexical: Array<{ skill: IndexedSkill, bm25: number, coverage: number }> = []
  const vector: Array<{ skill: IndexedSkill, cos: number }> = []
  for (const skill of index.skills) {
    if (exclude.has(skill.name)) continue
    const { bm25, coverage } = lexicalMatch(index, query, skill)
    if (bm25 > 0) lexical.push({ skill, bm25, coverage })
    vector.push({ skill, cos: cosine(query.vector, skill.vector) })
  }
  lexical.sort((a, b) => b.bm25 - a.bm25 || a.skill.id - b.skill.id)
  vector.sort((a, b) => b.cos - a.cos || a.skill.id - b.skill.id)
  const depth = settings.topK * 4
  const lexicalTop = lexical.slice(0, depth)
  const vectorTop = vector.slice(0, depth)
  const coverage = new Map(lexicalTop.map(entry => [entry.skill.name, entry.coverage]))
  const cosines = new Map(vectorTop.map(entry => [entry.skill.name, entry.cos]))
  const fused = reciprocalRankFusion([lexicalTop.map(entry => entry.skill.name), vectorTop.map(entry => entry.skill.name)])
  return fused
    .slice(0, settings.topK)
    .map((entry) => {
      const skill = index.byName.get(entry.key)!
      const cos = cosines.get(entry.key) ?? cosine(query.vector, skill.vector)
      return {
        name: entry.key,
        id: skill.id,
        score: matchScore(coverage.get(entry.key) ?? 0, cos),
        lexicalRank: entry.ranks[0] ?? null,
        vectorRank: entry.ranks[1] ?? null,
        rrf: round(entry.score),
      }
    })
    .sort(byScore)
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000
}

const FORCED = /(?:^|\s)\/([a-z0-9]+(?:-[a-z0-9]+)*)(?=$|[\s.,;:!?])/g

/** The `/name` skills a person forced in the request. */
export function forcedNames(request: string): string[] {
  return [...new Set([...request.matchAll(FORCED)].map(match => match[1]!))]
}

export type Branch = 'high' | 'model' | 'ambiguous_offline' | 'low' | 'no_candidate'
export type KeptMode = 'forced' | 'auto' | 'model'

/** What the run's model answered between the thresholds, and why that applied what it did. */
export interface ModelChoice {
  /** Every name the model said (a hostile or malformed answer included). */
  answered: string[]
  /** Names said that were not among the candidates: never applied. */
  rejected: string[]
  note: string
}

export interface RouterDecision {
  request: string
  branch: Branch
  model?: ModelChoice
  settings: RouterSettings
  kept: Array<{ name: string, id: number | null, mode: KeptMode, score: number | null }>
  dropped: Array<{ name: string, reason: string, score: number | null }>
  candidates: Candidate[]
}

export interface RouteInput {
  request: string
  /** Names forced by the caller besides the request's `/name` words. */
  forced?: string[]
  settings?: RouterSettings
  /**
   * The run's model choosing among candidates (the between-thresholds branch). Absent when
   * offline: only the deterministic branches run.
   */
  choose?: (request: string, candidates: Candidate[]) => Promise<string[]>
  /** The memory's recall as the candidate source (the hub); absent, the in-process fusion. */
  recall?: SkillRecall
}

export async function routeSkills(index: SkillIndex, input: RouteInput): Promise<RouterDecision> {
  const settings = input.settings ?? DEFAULT_ROUTER_SETTINGS
  const forced = [...new Set([...(input.forced ?? []), ...forcedNames(input.request)])]
  const kept: RouterDecision['kept'] = []
  const dropped: RouterDecision['dropped'] = []
  for (const name of forced) {
    const skill = index.byName.get(name)
    if (skill) kept.push({ name, id: skill.id, mode: 'forced', score: null })
    else dropped.push({ name, reason: 'forced_unknown: no enabled skill of this name', score: null })
  }
  const text = input.request.replace(FORCED, ' ')
  const excluded = new Set(forced)
  const candidates = !input.recall
    ? candidatesFor(index, text, settings, excluded)
    : stems(text).length === 0 || index.skills.length === 0
      ? []
      : scoreRecalled(index, text, await input.recall(text, settings.topK, excluded), settings, excluded)
  const best = candidates[0]?.score ?? 0
  let branch: Branch
  let chosen: Array<{ candidate: Candidate, mode: KeptMode }> = []
  let model: ModelChoice | undefined
  if (candidates.length === 0) branch = 'no_candidate'
  else if (best >= settings.high) {
    branch = 'high'
    chosen = candidates.filter(c => c.score >= settings.high).slice(0, settings.maxAuto).map(candidate => ({ candidate, mode: 'auto' }))
  }
  else if (best >= settings.low) {
    const eligible = candidates.filter(c => c.score >= settings.low)
    if (input.choose) {
      branch = 'model'
      let answered: string[] = []
      let failure: string | null = null
      try {
        answered = await input.choose(text, eligible)
      }
      catch (error) {
        // A failed model call applies none; the run goes on and the step says why.
        failure = (error as Error).message
      }
      const picked = new Set(answered)
      // The model picks only among candidates, never more than the cap.
      chosen = eligible.filter(c => picked.has(c.name)).slice(0, settings.maxAuto).map(candidate => ({ candidate, mode: 'model' }))
      model = modelChoice(answered, eligible, chosen.map(c => c.candidate.name), failure)
    }
    else branch = 'ambiguous_offline'
  }
  else branch = 'low'
  const keptNames = new Set(chosen.map(c => c.candidate.name))
  for (const { candidate, mode } of chosen) kept.push({ name: candidate.name, id: candidate.id, mode, score: candidate.score })
  for (const candidate of candidates) {
    if (keptNames.has(candidate.name)) continue
    dropped.push({ name: candidate.name, score: candidate.score, reason: dropReason(branch, candidate, settings) })
  }
  return { request: input.request, branch, ...(model ? { model } : {}), settings, kept, dropped, candidates }
}

function modelChoice(answered: string[], eligible: Candidate[], applied: string[], failure: string | null): ModelChoice {
  const names = new Set(eligible.map(c => c.name))
  const rejected = [...new Set(answered.filter(name => !names.has(name)))]
  let note: string
  if (failure !== null) note = `model_error: none applied (${failure.slice(0, 300)})`
  else if (applied.length > 0) note = rejected.length > 0 ? `applied ${applied.join(', ')}; ignored names not among the candidates: ${rejected.join(', ')}` : `applied ${applied.join(', ')}`
  else if (rejected.length > 0) note = `none applied: the model named only names not among the candidates (${rejected.join(', ')})`
  else note = 'none applied: the model chose none'
  return { answered, rejected, note }
}

function dropReason(branch: Branch, candidate: Candidate, settings: RouterSettings): string {
  if (candidate.score < settings.low) return 'below_low'
  if (branch === 'high') return candidate.score >= settings.high ? 'cap' : 'below_high'
  if (branch === 'model') return 'not_chosen_by_model'
  if (branch === 'ambiguous_offline') return 'ambiguous_offline: no model to choose'
  return 'below_low'
}
