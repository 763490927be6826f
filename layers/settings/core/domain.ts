import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'settings',
  title: 'Settings',
  icon: 'i-lucide-plug',
  summary: 'The connections the hub uses (mailbox, outbound mail, antivirus, OCR, models, the agent CLI), each with a test.',
  planned: [],
}
