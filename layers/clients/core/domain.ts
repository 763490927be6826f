import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'clients',
  title: 'Clients',
  icon: 'i-lucide-building-2',
  summary: 'The studio\'s clients: mail domains and contacts, repository, pre-production address and model.',
  planned: [],
}
