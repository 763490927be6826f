// Client helpers shared by the worksites pages: the vocabulary (statuses, their labels and the
// transition table, served by GET /api/worksites/vocabulary so the pages never hard-code them)
// and what a refused call says (the route's data.code and, for a refused transition, the
// statuses it allows).

import type { OwnerView, Vocabulary } from '../shared/api'

export type WorksitesEntity = 'project' | 'chantier' | 'job' | 'task'

/** The vocabulary, fetched once per page load and shared by every component of the page. */
export async function useWorksitesVocabulary() {
  const { data, error } = await useFetch<Vocabulary>('/api/worksites/vocabulary', { key: 'worksites-vocabulary' })
  const label = (entity: WorksitesEntity, status: string) => data.value?.entities[entity]?.statuses.find(s => s.value === status)?.label ?? status
  const allowed = (entity: WorksitesEntity, from: string): readonly string[] => data.value?.entities[entity]?.transitions[from] ?? []
  const needsReason = (entity: WorksitesEntity, to: string) => Boolean(data.value?.reasonRequired.some(rule => rule.entity === entity && rule.to === to))
  return { vocabulary: data, error, label, allowed, needsReason }
}

/** An owner as a person reads it: the agent's or person's name, else its codename or id. */
export function ownerName(owner: OwnerView): string {
  if (!owner) return ''
  return owner.name ?? (owner.kind === 'agent' ? owner.codename : owner.id)
}

/** The machine-readable body of a refused call ($fetch rejection): `{ code, allowed, … }`. */
export function refusal(failure: unknown): { code?: string, allowed?: string[] } & Record<string, unknown> {
  const body = (failure as { data?: { data?: unknown } } | null)?.data?.data
  return body && typeof body === 'object' ? body as Record<string, unknown> : {}
}

const STATUS_COLORS: Record<string, 'neutral' | 'primary' | 'success' | 'warning' | 'error' | 'info'> = {
  draft: 'neutral', planned: 'info', todo: 'neutral', open: 'neutral', new: 'neutral',
  active: 'primary', in_progress: 'primary', review: 'warning', paused: 'warning', blocked: 'error',
  done: 'success', answered: 'success', given: 'success', won: 'success',
  archived: 'neutral', cancelled: 'neutral', rejected: 'error', lost: 'error',
}

export function statusColor(status: string) {
  return STATUS_COLORS[status] ?? 'neutral'
}

/** A closed status: nothing to act on any more. */
export function isClosedStatus(status: string): boolean {
  return ['done', 'cancelled', 'rejected', 'archived', 'answered', 'given', 'won', 'lost'].includes(status)
}

const whenFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })

/** A date and time rendered the same on the server and in the browser (UTC), so hydration agrees. */
export function formatWorkWhen(iso: string | null | undefined): string {
  if (!iso) return '—'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? String(iso) : `${whenFormat.format(date)} UTC`
}

export interface RegistryInfo { kind: string, label: string, icon: string, description: string, statuses: string[] }

/** The four registries a classification materialises into, as the pages name and link them. */
export const REGISTRIES: RegistryInfo[] = [
  { kind: 'runs', label: 'Runs', icon: 'i-lucide-play', description: 'Atomic tasks done in one command: close them done or cancelled.', statuses: ['open', 'in_progress', 'done', 'cancelled'] },
  { kind: 'questions', label: 'Questions', icon: 'i-lucide-circle-help', description: 'Requests for an opinion or an analysis: answer them.', statuses: ['open', 'answered', 'cancelled'] },
  { kind: 'negociations', label: 'Negociations', icon: 'i-lucide-handshake', description: 'Prospects and quotes: won or lost.', statuses: ['new', 'in_progress', 'won', 'lost', 'cancelled'] },
  { kind: 'conseils', label: 'Conseils', icon: 'i-lucide-lightbulb', description: 'Expertise on an existing external item: give the advice.', statuses: ['open', 'given', 'cancelled'] },
]

export function registryOf(kind: string): RegistryInfo | undefined {
  return REGISTRIES.find(registry => registry.kind === kind)
}

const REGISTRY_STATUS_LABELS: Record<string, string> = { open: 'Open', new: 'New', in_progress: 'In progress', done: 'Done', cancelled: 'Cancelled', answered: 'Answered', won: 'Won', lost: 'Lost', given: 'Given' }
export function registryStatusLabel(status: string): string {
  return REGISTRY_STATUS_LABELS[status] ?? status
}
