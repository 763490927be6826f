// The briefing an LLM receives before a task (atlas-agentic-core.md §2.4): the agent's tier
// (core / metier / full) from the table, then the relevant scars — hybrid recall, the
// agent's own first, supplemented with global ones, never another agent's — the mission
// brief when the task resolves to a project, and the user model's core slice. Recall, the
// mission lookup and the user model arrive as functions (memory-adapters.ts wires the real ones).
import type { Db } from '../../../db/client'
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
  /** A project reference (a chantier id) the task resolves to. */
  project?: string | null
  scars?: number
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
  text: string
  tokens: number
}

/**
 * The agent's own scars first, then global ones (no owner) up to k; another agent's scars
 * are never served, so that an agent does not take someone else's lessons as its own.
 */
export async function relevantScars(recallScars: ScarRecall, request: { task: string, codename: string, k: number }): Promise<BriefingScar[]> {
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
  fr: { scars: '## Cicatrices à garder en tête', own: 'la tienne', global: 'globale', mission: '## Brief de mission', task: '## Tâche' },
  en: { scars: '## Scars to keep in mind', own: 'yours', global: 'global', mission: '## Mission brief', task: '## Task' },
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

export async function loadBriefing(deps: BriefingDeps, request: BriefingRequest): Promise<Briefing> {
  const { tier, lang, k, task } = validateBriefingRequest(request)
  const agent = await findAgent(deps.db, request.codename)
  const personaText = renderTier(agent, tier, lang)
  const [scars, mission, user] = await Promise.all([
    task && k > 0 && deps.recallScars ? relevantScars(deps.recallScars, { task, codename: agent.codename, k }) : Promise.resolve([]),
    request.project && deps.missionBrief ? deps.missionBrief(request.project) : Promise.resolve(null),
    deps.userCore ? deps.userCore() : Promise.resolve(null),
  ])
  const h = HEADINGS[lang]
  const parts = [personaText]
  if (scars.length) parts.push('', h.scars, ...scars.map(scar => `- (${scar.origin === 'own' ? h.own : h.global}) ${scar.title}: ${clip(scar.snippet.replace(/\s+/g, ' '), 280)}`))
  if (mission) parts.push('', h.mission, `${mission.title}`, clip(mission.brief, 2000))
  if (user) parts.push('', user)
  if (task) parts.push('', h.task, task)
  const text = parts.join('\n')
  return {
    codename: agent.codename,
    tier,
    lang,
    persona: { text: personaText, tokens: countTokens(personaText), budget: TIER_BUDGETS[tier] },
    scars,
    mission,
    user,
    text,
    tokens: countTokens(text),
  }
}

/** The legacy alias (`format_briefing`): the metier tier. */
export async function formatBriefing(deps: BriefingDeps, request: Omit<BriefingRequest, 'tier'>): Promise<Briefing> {
  return await loadBriefing(deps, { ...request, tier: 'metier' })
}
