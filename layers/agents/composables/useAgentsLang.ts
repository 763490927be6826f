// The agents pages speak one language at a time: the registry's data is bilingual (French
// columns and their English twins), so these pages offer FR/EN, and the switch covers their
// labels, the family and tier names and the agent's texts. The choice is kept in a cookie.
import type { Lang } from '../core/persona'
import { FRENCH_UI, TIER_NAMES } from '../core/ui-words'

export function useAgentsLang() {
  const cookie = useCookie<Lang>('hub-agents-lang', { default: () => 'en', sameSite: 'lax' })
  // One state for the page and its components (the reactor): cookies refs are per call.
  const lang = useState<Lang>('hub-agents-lang', () => (cookie.value === 'fr' ? 'fr' : 'en'))
  const t = (text: string) => (lang.value === 'fr' ? FRENCH_UI[text] ?? text : text)
  useHead({ htmlAttrs: { lang } })
  return {
    lang,
    t,
    tierName: (tier: string) => t(TIER_NAMES[tier] ?? tier),
    toggle: () => {
      lang.value = lang.value === 'en' ? 'fr' : 'en'
      cookie.value = lang.value
    },
  }
}
