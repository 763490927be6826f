// The worksites vocabulary in one place (issue 16, Deliver 1): the hierarchy project →
// chantier → job → task, each entity's canonical statuses and the transitions a person or an
// agent may make between them, the scopes of work, and the iteration outcomes. The database
// enforces the same lists with check constraints (migration 0019); the routes refuse any other
// transition with a 409 naming the allowed ones; the hub reads it from GET /api/worksites/vocabulary.
// Framework-free and import-free, so the hub pages and every layer may read it.

export const ENTITIES = ['project', 'chantier', 'job', 'task'] as const
export type Entity = typeof ENTITIES[number]

export const PROJECT_STATUSES = ['active', 'paused', 'archived'] as const
/**
 * A chantier is drafted by the classifier (draft), then a person promotes it into a planned
 * chantier with its jobs, or rejects it with a reason (which the calibration report counts).
 * Work starts (active), ends (done), or is abandoned (cancelled).
 */
export const CHANTIER_STATUSES = ['draft', 'planned', 'active', 'done', 'cancelled', 'rejected'] as const
/** Jobs and tasks share one lifecycle; the task statuses are the board's columns, in this order. */
export const WORK_ITEM_STATUSES = ['todo', 'in_progress', 'review', 'blocked', 'done', 'cancelled'] as const

export type ProjectStatus = typeof PROJECT_STATUSES[number]
export type ChantierStatus = typeof CHANTIER_STATUSES[number]
export type WorkItemStatus = typeof WORK_ITEM_STATUSES[number]
export type StatusOf<E extends Entity> = E extends 'project' ? ProjectStatus : E extends 'chantier' ? ChantierStatus : WorkItemStatus

/**
 * What kind of work a job or task is: the spawn's perimeter (investigation, code, commit) and
 * the records around it. Used by the board's filters and by the briefing.
 */
export const SCOPES = ['code', 'ops', 'content', 'research', 'review'] as const
export type Scope = typeof SCOPES[number]

/** How one iteration (one step of a task, at least one per spawn attempt) ended. */
export const ITERATION_OUTCOMES = ['done', 'pass', 'fail'] as const
export type IterationOutcome = typeof ITERATION_OUTCOMES[number]

/** What a timeline item tells of (GET …/:id/timeline, a registry record's detail). */
export const TIMELINE_KINDS = ['message', 'spawn', 'qa', 'lesson', 'iteration', 'transition', 'assignment'] as const
export type TimelineKind = typeof TIMELINE_KINDS[number]

export const OWNER_KINDS = ['agent', 'user'] as const
export type OwnerKind = typeof OWNER_KINDS[number]

const LABELS: Record<string, string> = {
  active: 'Active',
  paused: 'Paused',
  archived: 'Archived',
  draft: 'Draft',
  planned: 'Planned',
  done: 'Done',
  cancelled: 'Cancelled',
  rejected: 'Rejected',
  todo: 'To do',
  in_progress: 'In progress',
  review: 'Review',
  blocked: 'Blocked',
  code: 'Code',
  ops: 'Operations',
  content: 'Content',
  research: 'Research',
}

export function statusLabel(value: string): string {
  return LABELS[value] ?? value
}

const WORK_ITEM_TRANSITIONS: Record<WorkItemStatus, readonly WorkItemStatus[]> = {
  todo: ['in_progress', 'blocked', 'cancelled'],
  in_progress: ['todo', 'review', 'blocked', 'done', 'cancelled'],
  review: ['in_progress', 'done', 'cancelled'],
  blocked: ['todo', 'in_progress', 'cancelled'],
  // Reopened when the work turns out unfinished (a failed QA after the fact).
  done: ['in_progress'],
  cancelled: ['todo'],
}

/** from → the statuses it may move to. Anything else is an illegal transition. */
export const TRANSITIONS: { [E in Entity]: Record<StatusOf<E>, readonly StatusOf<E>[]> } = {
  project: {
    active: ['paused', 'archived'],
    paused: ['active', 'archived'],
    archived: ['active'],
  },
  chantier: {
    // draft → planned is the promotion (the existing "confirm" is the same move, without jobs).
    draft: ['planned', 'rejected', 'cancelled'],
    planned: ['active', 'cancelled'],
    active: ['done', 'cancelled'],
    done: ['active'],
    // Terminal: a new message of the thread re-drafts through the classifier, not by hand.
    cancelled: [],
    rejected: [],
  },
  job: WORK_ITEM_TRANSITIONS,
  task: WORK_ITEM_TRANSITIONS,
}

export const INITIAL_STATUS: { [E in Entity]: StatusOf<E> } = {
  project: 'active',
  chantier: 'draft',
  job: 'todo',
  task: 'todo',
}

export const STATUSES: { [E in Entity]: readonly StatusOf<E>[] } = {
  project: PROJECT_STATUSES,
  chantier: CHANTIER_STATUSES,
  job: WORK_ITEM_STATUSES,
  task: WORK_ITEM_STATUSES,
}

/** Statuses in which a chantier still counts as open (a project holding one cannot be deleted). */
export const OPEN_CHANTIER_STATUSES: readonly ChantierStatus[] = ['draft', 'planned', 'active']
/** Transitions that need a reason (kept in the transition history and, for chantiers, on the row). */
export const REASON_REQUIRED: ReadonlyArray<[Entity, string]> = [['chantier', 'rejected'], ['chantier', 'cancelled']]

export function isStatus<E extends Entity>(entity: E, value: unknown): value is StatusOf<E> {
  return typeof value === 'string' && (STATUSES[entity] as readonly string[]).includes(value)
}

export function allowedTransitions<E extends Entity>(entity: E, from: string): readonly string[] {
  return (TRANSITIONS[entity] as Record<string, readonly string[]>)[from] ?? []
}

export function canTransition(entity: Entity, from: string, to: string): boolean {
  return allowedTransitions(entity, from).includes(to)
}

export function reasonRequired(entity: Entity, to: string): boolean {
  return REASON_REQUIRED.some(([e, s]) => e === entity && s === to)
}

/** The vocabulary as GET /api/worksites/vocabulary serves it. */
export function vocabulary() {
  const entity = <E extends Entity>(e: E) => ({
    statuses: STATUSES[e].map(value => ({ value, label: statusLabel(value) })),
    transitions: TRANSITIONS[e] as Record<string, readonly string[]>,
    initial: INITIAL_STATUS[e] as string,
  })
  return {
    entities: { project: entity('project'), chantier: entity('chantier'), job: entity('job'), task: entity('task') },
    scopes: SCOPES.map(value => ({ value, label: statusLabel(value) })),
    iterationOutcomes: [...ITERATION_OUTCOMES],
    reasonRequired: REASON_REQUIRED.map(([e, to]) => ({ entity: e, to })),
  }
}

export type Vocabulary = ReturnType<typeof vocabulary>

/**
 * The registries the classifier fills besides chantiers (runs, questions, négociations,
 * conseils): their statuses (the tables' checks) and the moves a person makes on them. A
 * cancelled record counts against the classifier in its calibration report.
 */
export const REGISTRY_STATUSES = {
  run: ['open', 'in_progress', 'done', 'cancelled'],
  question: ['open', 'answered', 'cancelled'],
  negociation: ['new', 'in_progress', 'won', 'lost', 'cancelled'],
  conseil: ['open', 'given', 'cancelled'],
} as const
export type RegistryEntity = keyof typeof REGISTRY_STATUSES

export const REGISTRY_TRANSITIONS: { [K in RegistryEntity]: Record<string, readonly string[]> } = {
  run: { open: ['in_progress', 'done', 'cancelled'], in_progress: ['done', 'cancelled'], done: [], cancelled: [] },
  question: { open: ['answered', 'cancelled'], answered: [], cancelled: [] },
  negociation: { new: ['in_progress', 'won', 'lost', 'cancelled'], in_progress: ['won', 'lost', 'cancelled'], won: [], lost: [], cancelled: [] },
  conseil: { open: ['given', 'cancelled'], given: [], cancelled: [] },
}
