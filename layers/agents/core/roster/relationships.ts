// The seeded relationships between agents: who reports to whom, who reviews whose work,
// who hands off to whom, who challenges whom.
import type { RosterRelationship } from './types'

type Pair = [from: string, to: string, kind: RosterRelationship['kind']]

const NOTES: Record<RosterRelationship['kind'], { fr: string, en: string }> = {
  reports_to: { fr: 'rend compte à', en: 'reports to' },
  reviews: { fr: 'relit et valide le travail de', en: 'reviews and approves the work of' },
  hands_off_to: { fr: 'passe la main à', en: 'hands off to' },
  challenges: { fr: 'questionne les choix de', en: 'challenges the choices of' },
}

const PAIRS: Pair[] = [
  ['strategie', 'orchestrator', 'reports_to'],
  ['finances', 'orchestrator', 'reports_to'],
  ['relation-humaine', 'orchestrator', 'reports_to'],
  ['architecture', 'orchestrator', 'reports_to'],
  ['donnees', 'orchestrator', 'reports_to'],
  ['planification', 'orchestrator', 'reports_to'],
  ['veille', 'strategie', 'reports_to'],
  ['analyse-besoin', 'planification', 'hands_off_to'],
  ['analyse-besoin', 'strategie', 'challenges'],
  ['architecture', 'backend', 'hands_off_to'],
  ['architecture', 'base-de-donnees', 'hands_off_to'],
  ['planification', 'frontend', 'hands_off_to'],
  ['planification', 'infrastructure', 'hands_off_to'],
  ['planification', 'integration', 'hands_off_to'],
  ['planification', 'automatisation', 'hands_off_to'],
  ['donnees', 'base-de-donnees', 'challenges'],
  ['securite', 'backend', 'reviews'],
  ['securite', 'integration', 'reviews'],
  ['qa-fonctionnelle', 'backend', 'reviews'],
  ['qa-fonctionnelle', 'frontend', 'reviews'],
  ['design', 'frontend', 'reviews'],
  ['design', 'visuels', 'reviews'],
  ['design', 'video-courte', 'reviews'],
  ['accessibilite', 'frontend', 'reviews'],
  ['performance', 'frontend', 'reviews'],
  ['performance', 'base-de-donnees', 'reviews'],
  ['conformite', 'integration', 'reviews'],
  ['seo-technique', 'redaction', 'reviews'],
  ['seo-technique', 'faq', 'reviews'],
  ['documentation', 'faq', 'reviews'],
  ['documentation', 'automatisation', 'reviews'],
  ['relation-humaine', 'redaction', 'reviews'],
  ['relation-humaine', 'reseaux-sociaux', 'reviews'],
  ['finances', 'podcast', 'challenges'],
  ['sante-systeme', 'infrastructure', 'reviews'],
  ['sante-systeme', 'automatisation', 'reviews'],
  ['sante-systeme', 'orchestrator', 'reports_to'],
]

export const RELATIONSHIPS: RosterRelationship[] = PAIRS.map(([from, to, kind]) => ({
  from,
  to,
  kind,
  note: NOTES[kind].fr,
  noteEn: NOTES[kind].en,
}))
