// The seeded roster: about thirty agents across the four families and three stored rings,
// matching the seed's distribution (atlas-agentic-core.md, "Orbits").
import type { NewAgent } from '#db/schema/agents'
import { CADRAGE } from './cadrage'
import { DIRECTION } from './direction'
import { EXECUTION } from './execution'
import { RELATIONSHIPS } from './relationships'
import type { CognitiveFrame, Narrative, RosterAgent } from './types'
import { VALIDATION } from './validation'

export type { RosterAgent, RosterRelationship, Narrative, CognitiveFrame } from './types'

export const ROSTER: RosterAgent[] = [...DIRECTION, ...CADRAGE, ...VALIDATION, ...EXECUTION]
export { RELATIONSHIPS }

const FRAME_LABELS = {
  fr: { perception: 'Perception', reasoning: 'Raisonnement', decision: 'Décision', vigilance: 'Vigilance' },
  en: { perception: 'Perception', reasoning: 'Reasoning', decision: 'Decision', vigilance: 'Vigilance' },
} as const

/** The four cognitive dimensions as the `cognitive_frame` text. */
export function frameText(frame: CognitiveFrame, lang: 'fr' | 'en'): string {
  const labels = FRAME_LABELS[lang]
  const colon = lang === 'fr' ? ' :' : ':'
  return (Object.keys(labels) as (keyof CognitiveFrame)[]).map(key => `- ${labels[key]}${colon} ${frame[key]}`).join('\n')
}

const checksText = (checks: string[]) => checks.map(check => `- ${check}`).join('\n')

function contentMd(agent: RosterAgent, n: Narrative): string {
  return [
    `# ${agent.nickname} — ${n.role}`,
    `> ${n.quote}`,
    `## Cadre cognitif`, frameText(n.frame, 'fr'),
    `## Mission`, n.mission,
    `## Périmètre`, n.perimeter,
    `## Contrôles clés`, checksText(n.keyChecks),
    `## Personnalité`, n.personality,
    `## Ancrage`, n.heritage,
    `## Inspiration`, n.inspiration,
    `## Preuve`, n.proof,
  ].join('\n\n')
}

/** The seeded columns of one agent (runtime columns — counters, active — are the database's). */
export function rosterRow(agent: RosterAgent): Omit<NewAgent, 'id' | 'active' | 'spawnCount' | 'errorCount' | 'lastSpawnAt' | 'lastErrorAt' | 'createdAt' | 'updatedAt'> {
  const { fr, en } = agent
  return {
    codename: agent.codename,
    nickname: agent.nickname,
    groupName: agent.family,
    orbite: agent.ring,
    promptDomains: agent.domains.join(','),
    autoSpawn: agent.autoSpawn ? 1 : 0,
    role: fr.role,
    roleEn: en.role,
    heritage: fr.heritage,
    heritageEn: en.heritage,
    cognitiveFrame: frameText(fr.frame, 'fr'),
    cognitiveFrameEn: frameText(en.frame, 'en'),
    personality: fr.personality,
    personalityEn: en.personality,
    quote: fr.quote,
    quoteEn: en.quote,
    inspiration: fr.inspiration,
    inspirationEn: en.inspiration,
    proof: fr.proof,
    proofEn: en.proof,
    jobMission: fr.mission,
    jobMissionEn: en.mission,
    jobPerimeter: fr.perimeter,
    jobPerimeterEn: en.perimeter,
    jobKeyChecks: checksText(fr.keyChecks),
    jobKeyChecksEn: checksText(en.keyChecks),
    contentMd: contentMd(agent, fr),
  }
}
