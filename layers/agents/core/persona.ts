// Persona loading (atlas-agentic-core.md §2.4): three rendering tiers assembled from the
// agents table — core (~150 tokens: the cognitive frame and a minimal identity), metier
// (~350: + role and business scope, the default briefing) and full (~600: + heritage,
// quote, personality, inspiration, proof) — then, around the tier, the relevant scars (the
// agent's own first, then global ones), the mission brief when the task resolves to a
// project, and the user model's core slice. Everything reached through arguments.
import type { Agent } from '#db/schema/agents'
import { CONTRACT_LINE, FAMILY_BRIEFS, FULL_USE_LINE } from './family-brief'
import { isAgentFamily } from './families'
import { countTokens } from './tokens'

export const TIERS = ['core', 'metier', 'full'] as const
export type Tier = typeof TIERS[number]
export const LANGS = ['fr', 'en'] as const
export type Lang = typeof LANGS[number]

/** Approximate budgets (tokens); a seeded agent's tiers stay within ±20 %. */
export const TIER_BUDGETS: Record<Tier, number> = { core: 150, metier: 350, full: 600 }
export const TIER_TOLERANCE = 0.2

export type PersonaSource = Pick<Agent, 'codename' | 'nickname' | 'role' | 'roleEn' | 'groupName' | 'heritage' | 'heritageEn'
  | 'cognitiveFrame' | 'cognitiveFrameEn' | 'personality' | 'personalityEn' | 'quote' | 'quoteEn' | 'inspiration' | 'inspirationEn'
  | 'proof' | 'proofEn' | 'jobMission' | 'jobMissionEn' | 'jobPerimeter' | 'jobPerimeterEn' | 'jobKeyChecks' | 'jobKeyChecksEn'>

const WORDS = {
  fr: {
    youAre: (a: string, c: string, role: string) => `# Tu es ${a} (\`${c}\`), ${role}.`,
    frame: '## Manière de penser (prioritaire)',
    frameRule: 'Ce cadre prime sur le style.',
    scope: '## Mission et périmètre',
    mission: 'Mission',
    perimeter: 'Périmètre',
    checks: 'Contrôles clés',
    guard: 'Tu enquêtes, écris du code et commites ; jamais de déploiement, de mail ni de composant public partagé.',
    identity: '## Identité',
    heritage: 'Ancrage',
    personality: 'Personnalité',
    quote: 'Devise',
    inspiration: 'Inspiration',
    proof: 'Preuve',
  },
  en: {
    youAre: (a: string, c: string, role: string) => `# You are ${a} (\`${c}\`), ${role}.`,
    frame: '## Way of thinking (top priority)',
    frameRule: 'This frame outranks style: apply it before any action.',
    scope: '## Mission and perimeter',
    mission: 'Mission',
    perimeter: 'Perimeter',
    checks: 'Key checks',
    guard: 'You investigate, write code and commit; never deploy, send mail or touch a shared public component.',
    identity: '## Identity',
    heritage: 'Heritage',
    personality: 'Personality',
    quote: 'Motto',
    inspiration: 'Inspiration',
    proof: 'Proof',
  },
} as const

function pick(agent: PersonaSource, lang: Lang) {
  const en = lang === 'en'
  const or = (english: string, french: string) => (en && english ? english : french)
  return {
    role: or(agent.roleEn, agent.role),
    heritage: or(agent.heritageEn, agent.heritage),
    frame: or(agent.cognitiveFrameEn, agent.cognitiveFrame),
    personality: or(agent.personalityEn, agent.personality),
    quote: or(agent.quoteEn, agent.quote),
    inspiration: or(agent.inspirationEn, agent.inspiration),
    proof: or(agent.proofEn, agent.proof),
    mission: or(agent.jobMissionEn, agent.jobMission),
    perimeter: or(agent.jobPerimeterEn, agent.jobPerimeter),
    keyChecks: or(agent.jobKeyChecksEn, agent.jobKeyChecks),
  }
}

/** One tier of an agent's persona, from its row alone (no scars, brief or profile). */
export function renderTier(agent: PersonaSource, tier: Tier, lang: Lang = 'en'): string {
  const w = WORDS[lang]
  const f = pick(agent, lang)
  const family = isAgentFamily(agent.groupName) ? FAMILY_BRIEFS[lang][agent.groupName] : null
  const out = [w.youAre(agent.nickname, agent.codename, f.role)]
  if (family) out.push(family.stance)
  out.push('', w.frame, f.frame, w.frameRule)
  if (tier === 'core') return out.join('\n')
  out.push('', w.scope, `${w.mission}: ${f.mission}`, `${w.perimeter}: ${f.perimeter}`, `${w.checks}:`, f.keyChecks)
  if (family) out.push(family.rule)
  out.push(w.guard, CONTRACT_LINE[lang])
  if (tier === 'metier') return out.join('\n')
  out.push('', w.identity, `${w.heritage}: ${f.heritage}`, `${w.personality}: ${f.personality}`, `${w.quote}: « ${f.quote} »`, `${w.inspiration}: ${f.inspiration}`, `${w.proof}: ${f.proof}`)
  if (family) out.push(family.orbit)
  out.push(FULL_USE_LINE[lang])
  return out.join('\n')
}

export interface TierPreview {
  tier: Tier
  text: string
  tokens: number
  budget: number
}

export function previewTiers(agent: PersonaSource, lang: Lang = 'en'): TierPreview[] {
  return TIERS.map((tier) => {
    const text = renderTier(agent, tier, lang)
    return { tier, text, tokens: countTokens(text), budget: TIER_BUDGETS[tier] }
  })
}

export function withinBudget(tokens: number, tier: Tier): boolean {
  const budget = TIER_BUDGETS[tier]
  return tokens >= budget * (1 - TIER_TOLERANCE) && tokens <= budget * (1 + TIER_TOLERANCE)
}
