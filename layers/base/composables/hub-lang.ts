// The pages that speak English or French (worksites, agents) share one choice, kept in the
// `hub-lang` cookie: FR/EN in a page's header switches every label of these pages together
// (user data stays as written). The cookies each of them kept before are honoured until the
// first switch: French if either said French. `t('{n} job(s)', { n: 2 })` fills named
// placeholders.

export type HubLang = 'en' | 'fr'

/** The cookies the worksites and agents pages kept their choice in before they shared one. */
const EARLIER_COOKIES = ['hub-worksites-lang', 'hub-agents-lang']

export function useHubLang(french: Readonly<Record<string, string>>) {
  const cookie = useCookie<HubLang | undefined>('hub-lang', { sameSite: 'lax' })
  // One state for the page and its components: cookie refs are per call.
  const lang = useState<HubLang>('hub-lang', () => {
    const chosen = cookie.value ?? (EARLIER_COOKIES.some(name => useCookie(name).value === 'fr') ? 'fr' : 'en')
    return chosen === 'fr' ? 'fr' : 'en'
  })
  useHead({ htmlAttrs: { lang } })
  const t = (text: string, values?: Record<string, string | number>) => {
    const said = lang.value === 'fr' ? french[text] ?? text : text
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
