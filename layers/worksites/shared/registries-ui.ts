// The four registries as the hub pages link them; their names and descriptions are in the
// catalog (i18n/locales, worksites.registries.<kind>), their statuses' words under worksites.status.

import { REGISTRY_STATUSES } from '../core/vocabulary'

export interface RegistryInfo { kind: string, icon: string, statuses: readonly string[] }

/** The four registries a classification materialises into, as the pages link them. */
export const REGISTRIES: RegistryInfo[] = [
  { kind: 'runs', icon: 'i-lucide-play', statuses: REGISTRY_STATUSES.run },
  { kind: 'questions', icon: 'i-lucide-circle-help', statuses: REGISTRY_STATUSES.question },
  { kind: 'negociations', icon: 'i-lucide-handshake', statuses: REGISTRY_STATUSES.negociation },
  { kind: 'conseils', icon: 'i-lucide-lightbulb', statuses: REGISTRY_STATUSES.conseil },
]

export function registryOf(kind: string): RegistryInfo | undefined {
  return REGISTRIES.find(registry => registry.kind === kind)
}
