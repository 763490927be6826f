import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'health',
  title: 'Health',
  icon: 'i-lucide-heart-pulse',
  summary: 'The health report and its history, the nights, the automations with their run log and circuit breakers, alerts and workers.',
  planned: [],
}
