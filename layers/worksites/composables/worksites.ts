// Client helpers shared by the worksites pages: the vocabulary (statuses, their labels and the
// transition table, served by GET /api/worksites/vocabulary so the pages never hard-code them)
// and what a refused call says (the route's data.code and, for a refused transition, the
// statuses it allows).

import type { OwnerView } from '../shared/api'
import type { Route } from '~~/shared/access'

export type WorksitesEntity = 'project' | 'chantier' | 'job' | 'task'

/** The route each control of a work item calls, by entity: what `useCan()` is asked before showing it. */
export const WORKSITES_ROUTES = {
  create: { project: 'POST /api/worksites/projects', chantier: 'POST /api/worksites/chantiers', job: 'POST /api/worksites/jobs', task: 'POST /api/worksites/tasks' },
  edit: { project: 'PATCH /api/worksites/projects/:id', chantier: 'PATCH /api/worksites/chantiers/:id', job: 'PATCH /api/worksites/jobs/:id', task: 'PATCH /api/worksites/tasks/:id' },
  transition: { project: 'POST /api/worksites/projects/:id/transition', chantier: 'POST /api/worksites/chantiers/:id/transition', job: 'POST /api/worksites/jobs/:id/transition', task: 'POST /api/worksites/tasks/:id/transition' },
  assign: { project: 'POST /api/worksites/projects/:id/assign', chantier: 'POST /api/worksites/chantiers/:id/assign', job: 'POST /api/worksites/jobs/:id/assign', task: 'POST /api/worksites/tasks/:id/assign' },
} as const satisfies Record<string, Record<WorksitesEntity, Route>>

/** The vocabulary, fetched once per page load and shared by every component of the page. */
export async function useWorksitesVocabulary() {
  const { t } = useI18n()
  const { data, error } = await useFetch('/api/worksites/vocabulary', { key: 'worksites-vocabulary' })
  // The vocabulary's labels are English; the catalog names every status in the page's language.
  const label = (_entity: WorksitesEntity, status: string) => t(`worksites.status.${status}`)
  const allowed = (entity: WorksitesEntity, from: string): readonly string[] => data.value?.entities[entity]?.transitions[from] ?? []
  const needsReason = (entity: WorksitesEntity, to: string) =>
    Boolean(data.value?.reasonRequired.some(rule => rule.entity === entity && rule.to === to))
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
