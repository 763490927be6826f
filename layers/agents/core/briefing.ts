// The briefing an LLM receives before a task (atlas-agentic-core.md §2.4): the agent's tier
// (core / metier / full) from the table, then the relevant lessons (scars, and victories when
// the recall serves them) — hybrid recall, the agent's own first, supplemented with global
// ones, never another agent's — the mission brief when the task resolves to a project, the
// reflex memory's entries and the user model's core slice. Recall, the mission lookup and the
// user model arrive as functions (memory-adapters.ts wires the real ones). With a token
// budget, the lowest-ranked lessons are dropped first, then the reflex entries from the last,
// then the user model, then the mission brief is cut; the persona is never dropped.
import type { Db } from '#db/client'
import { AgentsError } from './errors'
import { findAgent } from './registry'
import { LANGS, renderTier, TIER_BUDGETS, TIERS, type Lang, type Tier } from './persona'
import { countTokens } from './tokens'

export const DEFAULT_SCARS = 3
export const MAX_SCARS = 10

export interface ScarHit {
  id: string
  title: string
  snippet: string
  /** The owning agent's codename; null for a global scar. */
  agent: string | null
  /** scar (the default) or victory. */
  kind?: 'scar' | 'victory'
}

/** Hybrid recall over scars; `agent` null = every scar. */
export type ScarRecall = (request: { query: string, agent: string | null, k: number }) => Promise<ScarHit[]>
export type MissionBriefLookup = (project: string) => Promise<{ title: string, brief: string } | null>
export type UserCoreLookup = () => Promise<string | null>

export interface BriefingDeps {
  db: Db
  recallScars?: ScarRecall
  missionBrief?: MissionBriefLookup
  userCore?: UserCoreLookup
}

export interface BriefingRequest {
  codename: string
  tier?: Tier
  lang?: Lang
  /** What the agent is about to do: the scar recall's query. */
  task?: string
  /** A project reference (a chantier id, or a tenant for a spawn) the task resolves to. */
  project?: string | null
  scars?: number
  /** The recall's query when it differs from the task (a spawn recalls on the request, never shows it). */
  recallQuery?: string
  /** The reflex memory's entries (MEMORY.md), one line each. */
  reflex?: string[]
  /** The token budget of the whole text (o200k_base); none: no fitting. */
  budget?: number
}

export interface BriefingScar extends ScarHit {
  origin: 'own' | 'global'
}

export interface Briefing {
  codename: string
  tier: Tier
  lang: Lang
  persona: { text: string, tokens: number, budget: number }
  scars: BriefingScar[]
  mission: { title: string, brief: string } | null
  user: string | null
  reflex: string[]
  text: string
  tokens: number
  budget: number | null
  /** The lessons left out to fit the budget (lowest-ranked first dropped). */
  dropped: BriefingScar[]
  /** Recall was asked and found no lesson above the relevance floor: the text says so. */
  nothingRecalled: boolean
}

/**
 * The agent's own scars first, then global ones (no owner) up to k; another agent's scars
 * are never served, so that an agent does not take someone else's lessons as its own.
 */
export async function relevantScars(
  recallScars: ScarRecall,
  request: { task: string, codename: string, k: number },
): Promise<BriefingScar[]> {
  const { task, codename, k } = request
  const own = (await recallScars({ query: task, agent: codename, k })).filter(hit => hit.agent === codename).slice(0, k)
  const out: BriefingScar[] = own.map(hit => ({ ...hit, origin: 'own' }))
  if (out.length < k) {
    const seen = new Set(out.map(hit => hit.id))
    const global = (await recallScars({ query: task, agent: null, k: k * 3 })).filter(hit => hit.agent === null && !seen.has(hit.id))
    for (const hit of global.slice(0, k - out.length)) out.push({ ...hit, origin: 'global' })
  }
  return out
}

const HEADINGS = {
  fr: {
    scars: '## Cicatrices à garder en tête', own: 'la tienne', global: 'globale', victory: 'victoire', mission: '## Brief de mission', reflex: '## Mémoire réflexe', task: '## Tâche',
    nothing: 'Aucune connaissance antérieure trouvée : aucune leçon ne passe le seuil de pertinence pour cette tâche.',
  },
  en: {
    scars: '## Scars to keep in mind', own: 'yours', global: 'global', victory: 'victory', mission: '## Mission brief', reflex: '## Reflex memory', task: '## Task',
    nothing: 'No prior knowledge found: no lesson passes the relevance floor for this task.',
  },
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

export function validateBriefingRequest(request: BriefingRequest): { tier: Tier, lang: Lang, k: number, task: string } {
  const tier = request.tier ?? 'metier'
  if (!TIERS.includes(tier)) throw new AgentsError('bad_briefing_input', `the tier must be core, metier or full (got ${String(request.tier)})`)
  const lang = request.lang ?? 'en'
  if (!LANGS.includes(lang)) throw new AgentsError('bad_briefing_input', `the language must be fr or en (got ${String(request.lang)})`)
  const k = request.scars ?? DEFAULT_SCARS
  if (!Number.isInteger(k) || k < 0 || k > MAX_SCARS) throw new AgentsError('bad_briefing_input', `scars must be an integer from 0 to ${MAX_SCARS} (got ${String(request.scars)})`)
  const task = (request.task ?? '').trim()
  if (task.length > 6000) throw new AgentsError('bad_briefing_input', 'the task is longer than 6000 characters')
  return { tier, lang, k, task }
}

export interface BriefingParts {
  lang: Lang
  persona: string
  scars: BriefingScar[]
  mission: { title: string, brief: string } | null
  reflex: string[]
  user: string | null
  task: string
  /**
   * Recall was asked and found nothing relevant: the briefing says so instead of leaving the
   * agent to guess (an agent told "nothing known" is better off than one padded with weak notes).
   */
  nothingRecalled?: boolean
}

export function renderBriefing(parts: BriefingParts): string {
  const h = HEADINGS[parts.lang]
  const out = [parts.persona]
  if (parts.scars.length) {
    out.push('', h.scars, ...parts.scars.map((scar) => {
      const label = `${scar.origin === 'own' ? h.own : h.global}${scar.kind === 'victory' ? `, ${h.victory}` : ''}`
      return `- (${label}) ${scar.title}: ${clip(scar.snippet.replace(/\s+/g, ' '), 280)}`
    }))
  }
  else if (parts.nothingRecalled) out.push('', h.scars, h.nothing)
  if (parts.mission) out.push('', h.mission, `${parts.mission.title}`, clip(parts.mission.brief, 2000))
  if (parts.reflex.length) out.push('', h.reflex, ...parts.reflex.map(line => `- ${line}`))
  if (parts.user) out.push('', parts.user)
  if (parts.task) out.push('', h.task, parts.task)
  return out.join('\n')
}

/**
 * Fits the briefing to its budget: drops the lowest-ranked lesson first (the list is in rank
 * order), then the reflex entries from the last, then the user model, then cuts the mission
 * brief; the persona and the task stay whatever the budget (the budget is then exceeded).
 */
export function fitBriefing(
  parts: BriefingParts,
  budget: number | null,
): { parts: BriefingParts, text: string, tokens: number, dropped: BriefingScar[] } {
  const current: BriefingParts = { ...parts, scars: [...parts.scars], reflex: [...parts.reflex] }
  const dropped: BriefingScar[] = []
  let text = renderBriefing(current)
  let tokens = countTokens(text)
  const over = () => budget !== null && tokens > budget
  const step = (): boolean => {
    if (current.scars.length) dropped.unshift(current.scars.pop()!)
    else if (current.reflex.length) current.reflex.pop()
    else if (current.user) current.user = null
    else if (current.mission && current.mission.brief.length > 200)
      current.mission = { ...current.mission, brief: clip(current.mission.brief, Math.floor(current.mission.brief.length / 2)) }
    else if (current.mission) current.mission = null
    else return false
    return true
  }
  while (over() && step()) {
    text = renderBriefing(current)
    tokens = countTokens(text)
  }
  return { parts: current, text, tokens, dropped }
}

export async function loadBriefing(deps: BriefingDeps, request: BriefingRequest): Promise<Briefing> {
  const { tier, lang, k, task } = validateBriefingRequest(request)
  const budget = request.budget ?? null
  if (budget !== null && (!Number.isInteger(budget) || budget < 1)) throw new AgentsError('bad_briefing_input', `the budget must be a whole number of tokens ≥ 1 (got ${String(request.budget)})`)
  const agent = await findAgent(deps.db, request.codename)
  const personaText = renderTier(agent, tier, lang)
  const query = (request.recallQuery ?? task).trim()
  const recalled = Boolean(query && k > 0 && deps.recallScars)
  const [scars, mission, user] = await Promise.all([
    recalled && deps.recallScars ? relevantScars(deps.recallScars, { task: query, codename: agent.codename, k }) : Promise.resolve([]),
    request.project && deps.missionBrief ? deps.missionBrief(request.project) : Promise.resolve(null),
    deps.userCore ? deps.userCore() : Promise.resolve(null),
  ])
  const nothingRecalled = recalled && scars.length === 0
  const fitted = fitBriefing(
    { lang, persona: personaText, scars, mission, reflex: request.reflex ?? [], user, task, nothingRecalled },
    budget,
  )
  return {
    codename: agent.codename,
    tier,
    lang,
    persona: { text: personaText, tokens: countTokens(personaText), budget: TIER_BUDGETS[tier] },
    scars: fitted.parts.scars,
    mission: fitted.parts.mission,
    user: fitted.parts.user,
    reflex: fitted.parts.reflex,
    text: fitted.text,
    tokens: fitted.tokens,
    budget,
    dropped: fitted.dropped,
    nothingRecalled,
  }
}

/** The legacy alias (`format_briefing`): the metier tier. */
export async function formatBriefing(deps: BriefingDeps, request: Omit<BriefingRequest, 'tier'>): Promise<Briefing> {
  return await loadBriefing(deps, { ...request, tier: 'metier' })
}
