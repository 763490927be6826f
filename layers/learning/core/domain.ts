import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'learning',
  title: 'Learning',
  icon: 'i-lucide-graduation-cap',
  summary: 'Scars, lessons and the suggestions they lead to, each waiting for a human.',
  planned: [
    'Post-project debriefs',
    'Nightly consolidation reports',
  ],
}
