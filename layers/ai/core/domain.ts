import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'ai',
  title: 'AI routing & costs',
  icon: 'i-lucide-sparkles',
  summary: 'One gateway for every model call: routing, failover and the cost ledger.',
  planned: [],
  pages: [
    { label: 'Usage & budgets', icon: 'i-lucide-gauge', to: '/hub/usage' },
  ],
}
