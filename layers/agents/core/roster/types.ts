// The shape of one seeded agent: identity, the four cognitive dimensions, the business
// scope and the rich identity, in French (the stored columns) and English (the `_en` twins).
import type { AgentFamily } from '../families'

export interface CognitiveFrame {
  /** What it notices first. */
  perception: string
  /** How it reasons. */
  reasoning: string
  /** How it decides. */
  decision: string
  /** The blind spot it guards against. */
  vigilance: string
}

export interface Narrative {
  role: string
  heritage: string
  frame: CognitiveFrame
  personality: string
  quote: string
  inspiration: string
  proof: string
  mission: string
  perimeter: string
  keyChecks: string[]
}

export interface RosterAgent {
  codename: string
  nickname: string
  family: AgentFamily
  /** The stored ring (1–3): not always the reactor's (see families.ts). */
  ring: 1 | 2 | 3
  domains: string[]
  autoSpawn?: boolean
  fr: Narrative
  en: Narrative
}

export interface RosterRelationship {
  from: string
  to: string
  kind: 'reports_to' | 'reviews' | 'hands_off_to' | 'challenges'
  note: string
  noteEn: string
}
