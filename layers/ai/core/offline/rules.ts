// The offline provider's answers: rule-based, labelled as offline in every answer, for the
// features that need a JSON shape; a plain labelled notice otherwise. Never a model.
import { words } from './embed'

export type OfflineRule = (input: { prompt: string, system?: string }) => Record<string, unknown>

export const OFFLINE_NOTICE = '[offline] No AI model answered: this is the offline rule-based provider (no AI provider is configured).'

const INTENT_KEYWORDS: Array<[intent: string, keywords: string[]]> = [
  ['noise', ['unsubscribe', 'desabonner', 'desinscrire', 'newsletter', 'webinar', 'promotion', 'noreply']],
  ['negociation', ['devis', 'quote', 'quotation', 'tarif', 'tarifs', 'pricing', 'price', 'prix', 'proposal', 'budget', 'offre']],
  ['chantier', ['refonte', 'redesign', 'projet', 'project', 'migration', 'nouveau', 'new', 'site', 'application', 'plateforme']],
  ['run', ['bug', 'erreur', 'error', 'panne', 'down', 'corriger', 'fix', 'broken', 'casse', 'crash', 'bloque', 'urgent']],
  ['conseil', ['avis', 'conseil', 'conseils', 'advice', 'recommend', 'recommandation', 'expertise', 'audit']],
]

/** Atlas intent classification by keywords: the classifier's JSON shape, low confidence, labelled. */
export const classifyIntent: OfflineRule = ({ prompt }) => {
  const bag = new Set(words(prompt))
  let best: { intent: string, hits: string[] } = { intent: 'question', hits: [] }
  for (const [intent, keywords] of INTENT_KEYWORDS) {
    const hits = keywords.filter(k => bag.has(k))
    if (hits.length > best.hits.length) best = { intent, hits }
  }
  return {
    intent: best.intent,
    confidence: best.hits.length > 0 ? 0.6 : 0.5,
    reasoning: `offline rule-based classification, no model: ${best.hits.length > 0 ? `keywords ${best.hits.join(', ')}` : 'no keyword matched, defaulted to question'}`,
    offline: true,
  }
}

export const BUILT_IN_RULES: Record<string, OfflineRule> = {
  atlas_classify: classifyIntent,
}

/** Any other feature asking for JSON gets an explicit "no answer" object. */
export const genericJson: OfflineRule = () => ({ offline: true, answer: null, note: OFFLINE_NOTICE })
