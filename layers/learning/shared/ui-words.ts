// The learning page's words for the six destinations (§4.2).
import type { LearnDestination } from '#db/schema/learn'

export const DESTINATION_LABELS: Record<LearnDestination, string> = {
  directive: 'Agent directive',
  hooks: 'Hooks configuration',
  reflex: 'Reflex memory',
  inbox: 'Vault inbox note',
  skill: 'Skill proposal (founder promotes)',
  project: 'Project or tool',
}

export const DESTINATION_ITEMS = (Object.keys(DESTINATION_LABELS) as LearnDestination[]).map(value => ({ label: DESTINATION_LABELS[value], value }))
