// Client helpers shared by the worksites pages: the vocabulary (statuses, their labels and the
// transition table, served by GET /api/worksites/vocabulary so the pages never hard-code them)
// and what a refused call says (the route's data.code and, for a refused transition, the
// statuses it allows).

export type WorksitesEntity = 'project' | 'chantier' | 'job' | 'task'

export interface StatusOption { value: string, label: string }
export interface EntityVocabulary { statuses: StatusOption[], transitions: Record<string, string[]>, initial: string }
export interface WorksitesVocabulary { entities: Record<WorksitesEntity, EntityVocabulary>, scopes?: unknown }

/** The vocabulary, fetched once per page load and shared by every component of the page. */
export async function useWorksitesVocabulary() {
  const { data, error } = await useFetch<WorksitesVocabulary>('/api/worksites/vocabulary', { key: 'worksites-vocabulary' })
  const label = (entity: WorksitesEntity, status: string) => data.value?.entities[entity]?.statuses.find(s => s.value === status)?.label ?? status
  const allowed = (entity: WorksitesEntity, from: string) => data.value?.entities[entity]?.transitions[from] ?? []
  return { vocabulary: data, error, label, allowed }
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
