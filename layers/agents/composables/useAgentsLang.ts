// The agents pages speak English or French, as the hub's other bilingual pages do (base's
// useHubLang): the registry's data is bilingual (French columns and their English twins), so
// the switch covers their labels, the family and tier names and the agent's texts.
import { FRENCH_UI, TIER_NAMES } from '../core/ui-words'

export function useAgentsLang() {
  const { lang, t, toggle } = useHubLang(FRENCH_UI)
  return { lang, t, toggle, tierName: (tier: string) => t(TIER_NAMES[tier] ?? tier) }
}
