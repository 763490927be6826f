// The agents pages speak one language at a time: the registry's data is bilingual (French
// columns and their English twins), so these pages offer FR/EN, and the switch covers their
// labels, the family and tier names and the agent's texts. The choice is kept in a cookie.
import type { Lang } from '../core/persona'

const FRENCH: Record<string, string> = {
  // Registry and reactor
  'Reactor': 'Réacteur',
  'Active agents on their family\'s ring, with their live state from heartbeats. Click a node to open the agent.': 'Les agents actifs sur l\'anneau de leur famille, avec leur état en direct (battements de cœur). Un clic ouvre l\'agent.',
  'Registry': 'Registre',
  'Every agent of the registry: filter by family, stored ring, active flag or prompt domain.': 'Tous les agents du registre : filtrer par famille, anneau enregistré, activité ou domaine de prompt.',
  'All families': 'Toutes les familles',
  'All rings': 'Tous les anneaux',
  'Stored ring': 'Anneau enregistré',
  'Active and inactive': 'Actifs et inactifs',
  'Active': 'Actifs',
  'Inactive': 'Inactifs',
  'Prompt domain (faq, cover…)': 'Domaine de prompt (faq, cover…)',
  'Agent': 'Agent',
  'Family': 'Famille',
  'Ring': 'Anneau',
  'Prompt domains': 'Domaines de prompt',
  'State': 'État',
  'Spawns': 'Lancements',
  'failed': 'en échec',
  'reactor': 'réacteur',
  'agent(s)': 'agent(s)',
  'No agent matches these filters. The roster is seeded at start (npm start).': 'Aucun agent ne correspond à ces filtres. Le registre est rempli au démarrage (npm start).',
  'No active agent matches these filters.': 'Aucun agent actif ne correspond à ces filtres.',
  'Families': 'Familles',
  'States': 'États',
  'counter-clockwise': 'sens inverse',
  'Agents reactor': 'Réacteur des agents',
  // States
  'working': 'au travail',
  'idle': 'disponible',
  'waiting': 'en attente',
  'error': 'en erreur',
  'silent': 'silencieux',
  'dormant': 'en sommeil',
  'inactive': 'inactif',
  // Agent page
  'Identity': 'Identité',
  'Nickname': 'Surnom',
  'Codename': 'Nom de code',
  'Heritage': 'Héritage',
  'Quote': 'Citation',
  'Domains': 'Domaines',
  'stored ring': 'anneau enregistré',
  'reactor ring': 'anneau du réacteur',
  'Scope': 'Périmètre',
  'Mission.': 'Mission.',
  'Perimeter.': 'Périmètre.',
  'Key checks.': 'Contrôles clés.',
  'Way of thinking.': 'Manière de penser.',
  'Briefing tiers': 'Niveaux de briefing',
  'What the agent receives before a task, by tier, with its token count (o200k_base tokenizer) against the tier\'s budget.': 'Ce que l\'agent reçoit avant une tâche, par niveau, avec son nombre de jetons (tokenizer o200k_base) face au budget du niveau.',
  'tokens': 'jetons',
  'Relationships': 'Relations',
  'No relationship recorded.': 'Aucune relation enregistrée.',
  'Activity': 'Activité',
  'Its scars and victories': 'Ses cicatrices et victoires',
  'No activity yet: spawns and briefings will appear here.': 'Pas encore d\'activité : les lancements et les briefings apparaîtront ici.',
  'Identity in full': 'Identité complète',
  'Personality.': 'Personnalité.',
  'Inspiration.': 'Inspiration.',
  'Proof.': 'Preuve.',
  'Agents': 'Agents',
  // Tier names
  'Core': 'Noyau',
  'Trade': 'Métier',
  'Full': 'Complet',
}

const TIER_NAMES: Record<string, string> = { core: 'Core', metier: 'Trade', full: 'Full' }

export function useAgentsLang() {
  const cookie = useCookie<Lang>('hub-agents-lang', { default: () => 'en', sameSite: 'lax' })
  // One state for the page and its components (the reactor): cookies refs are per call.
  const lang = useState<Lang>('hub-agents-lang', () => (cookie.value === 'fr' ? 'fr' : 'en'))
  const t = (text: string) => (lang.value === 'fr' ? FRENCH[text] ?? text : text)
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
