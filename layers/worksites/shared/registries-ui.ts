// The four registries as the hub pages name, describe and link them (English; the pages'
// `t` translates, shared/ui-words.ts). Plain data, read by the pages and the language test.

import { REGISTRY_STATUSES } from '../core/vocabulary'

export interface RegistryInfo { kind: string, label: string, icon: string, description: string, statuses: readonly string[] }

/** The four registries a classification materialises into, as the pages name and link them. */
export const REGISTRIES: RegistryInfo[] = [
  { kind: 'runs', label: 'Runs', icon: 'i-lucide-play', description: 'Atomic tasks done in one command: close them done or cancelled.', statuses: REGISTRY_STATUSES.run },
  { kind: 'questions', label: 'Questions', icon: 'i-lucide-circle-help', description: 'Requests for an opinion or an analysis: answer them.', statuses: REGISTRY_STATUSES.question },
  { kind: 'negociations', label: 'Negociations', icon: 'i-lucide-handshake', description: 'Prospects and quotes: won or lost.', statuses: REGISTRY_STATUSES.negociation },
  { kind: 'conseils', label: 'Conseils', icon: 'i-lucide-lightbulb', description: 'Expertise on an existing external item: give the advice.', statuses: REGISTRY_STATUSES.conseil },
]

export function registryOf(kind: string): RegistryInfo | undefined {
  return REGISTRIES.find(registry => registry.kind === kind)
}

const REGISTRY_STATUS_LABELS: Record<string, string> = { open: 'Open', new: 'New', in_progress: 'In progress', done: 'Done', cancelled: 'Cancelled', answered: 'Answered', won: 'Won', lost: 'Lost', given: 'Given' }
/** A registry status's English label; the page's `t` translates it. */
export function registryStatusLabel(status: string): string {
  return REGISTRY_STATUS_LABELS[status] ?? status
}
