import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'atlas',
  title: 'Atlas inbox',
  icon: 'i-lucide-inbox',
  summary: 'Requests that arrive by email: collection, antivirus, OCR of screenshots, intent classification and the work record, then the agent\'s recap.',
  planned: [
    'Spawns of the headless agent with live events, deploy and browser QA',
    'Reply drafts and the recap email to the team',
  ],
}
