import type { DomainDescriptor } from '../../../shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'health',
  title: 'Health',
  icon: 'i-lucide-heart-pulse',
  summary: 'The automations, their execution log, alerts and the nightly maintenance loop.',
  planned: [
    'The automation registry and its circuit breakers',
    'Alerts raised by the lock guardian',
    'Nightly health reports and snapshots',
  ],
}
