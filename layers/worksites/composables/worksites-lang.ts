// The worksites pages speak English or French (the studio's work is named in French: chantier,
// négociation, conseil), as the hub's other bilingual pages do (base's useHubLang), with the
// worksites' words.
import type { HubLang } from '#layers/base/composables/hub-lang'
import { WORKSITES_FRENCH } from '../shared/ui-words'

export type WorksitesLang = HubLang

export const useWorksitesLang = () => useHubLang(WORKSITES_FRENCH)
