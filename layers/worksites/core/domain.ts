import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'worksites',
  title: 'Worksites',
  icon: 'i-lucide-hard-hat',
  summary: 'Chantiers, jobs and tasks, and the registries of runs, questions, negotiations and advice.',
  planned: [
    'Chantiers with their jobs and tasks',
    'Runs, questions, négociations and conseils',
    'Each record\'s link back to the message that created it',
  ],
  pages: [
    { label: 'Chantier drafts', icon: 'i-lucide-inbox', to: '/hub/worksites/drafts' },
    { label: 'Runs', icon: 'i-lucide-play', to: '/hub/worksites/registries/runs' },
    { label: 'Questions', icon: 'i-lucide-circle-help', to: '/hub/worksites/registries/questions' },
    { label: 'Negociations', icon: 'i-lucide-handshake', to: '/hub/worksites/registries/negociations' },
    { label: 'Conseils', icon: 'i-lucide-lightbulb', to: '/hub/worksites/registries/conseils' },
  ],
}
