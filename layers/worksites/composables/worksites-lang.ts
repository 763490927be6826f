// The worksites pages speak one language at a time, English or French (the studio's work is
// named in French: chantier, négociation, conseil): FR/EN in each page's header switches every
// label, status name and message of these pages together, kept in a cookie. User data (titles,
// briefs) stays as written. `t('{n} job(s)', { n: 2 })` fills named placeholders.
import { WORKSITES_FRENCH } from '../shared/ui-words'

export type WorksitesLang = 'en' | 'fr'

export function useWorksitesLang() {
  const cookie = useCookie<WorksitesLang>('hub-worksites-lang', { default: () => 'en', sameSite: 'lax' })
  // One state for the page and its components: cookie refs are per call.
  const lang = useState<WorksitesLang>('hub-worksites-lang', () => (cookie.value === 'fr' ? 'fr' : 'en'))
  useHead({ htmlAttrs: { lang } })
  const t = (text: string, values?: Record<string, string | number>) => {
    const said = lang.value === 'fr' ? WORKSITES_FRENCH[text] ?? text : text
    return values ? said.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : said
  }
  return {
    lang,
    t,
    toggle: () => {
      lang.value = lang.value === 'en' ? 'fr' : 'en'
      cookie.value = lang.value
    },
  }
}
