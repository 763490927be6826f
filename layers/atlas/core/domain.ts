import type { DomainDescriptor } from '../../../shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'atlas',
  title: 'Atlas inbox',
  icon: 'i-lucide-inbox',
  summary: "Requests that arrive by email, from collection to the agent's recap.",
  planned: [
    'IMAP collection with antivirus verdicts and OCR of screenshots',
    'Intent classification and the materialised work record',
    'Spawns of the headless agent with live events, deploy and browser QA',
    'Reply drafts and the audit trail of every message',
  ],
}
