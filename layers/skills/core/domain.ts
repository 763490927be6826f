import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'skills',
  title: 'Skills',
  icon: 'i-lucide-wrench',
  summary: 'The library of skills and the router that picks them.',
  planned: [],
}
