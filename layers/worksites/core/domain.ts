import type { DomainDescriptor } from '../../../shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'worksites',
  title: 'Worksites',
  icon: 'i-lucide-hard-hat',
  summary: 'Chantiers, jobs and tasks, and the registries of runs, questions, negotiations and advice.',
  planned: [
    'Chantiers with their jobs and tasks',
    'Runs, questions, négociations and conseils',
    "Each record's link back to the message that created it",
  ],
}
