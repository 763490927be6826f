// The JSON the worksites routes accept (issue 16, Deliver 3): zod schemas and the TypeScript
// types inferred from them, validated by the routes. What they return is typed by the core
// that builds it and re-exported below; the hub pages infer it from the routes (useFetch).
// Dates travel as ISO strings. Errors are createError bodies whose `data.code` is one of
// ERROR_CODES (see WorksitesErrorData). Route paths are listed in ROUTES below.
import { z } from 'zod'
import {
  CHANTIER_STATUSES, ENTITIES, ITERATION_OUTCOMES, PROJECT_STATUSES, SCOPES, WORK_ITEM_STATUSES,
} from '../core/vocabulary'

export const TITLE_MAX = 300
export const TEXT_MAX = 20_000
export const REASON_MAX = 2_000
export const LIMIT_MAX = 200

/**
 * Routes (all under /api/worksites; writes need operator; reads any signed-in person):
 *   GET  vocabulary                                   → Vocabulary
 *   GET  projects?tenantId&status&q&sort&cursor&limit → Page<Project>
 *   POST projects                                     ProjectCreate → Project
 *   GET|PATCH|DELETE projects/:id                     ProjectPatch → Project; DELETE → { ok, id }
 *   GET  projects/:id/board                           → Board
 *   GET  {chantiers|jobs|tasks}?projectId&chantierId&jobId&status&scope&owner&q&sort&cursor&limit → Page<…>
 *   POST {chantiers|jobs|tasks}                       ChantierCreate | JobCreate | TaskCreate → the entity
 *   GET|PATCH {chantiers|jobs|tasks}/:id              ChantierPatch | JobPatch | TaskPatch → the entity
 *   POST {projects|chantiers|jobs|tasks}/:id/transition  TransitionInput → the entity
 *   POST {projects|chantiers|jobs|tasks}/:id/assign      AssignInput → the entity
 *   GET  {projects|chantiers|jobs|tasks}/:id/timeline    → Timeline
 *   GET  tasks/:id/iterations                         → { items: Iteration[] }
 *   POST recall                                       RecallInput → RecallResult (nothing stored)
 *   GET  drafts?cursor&limit                          → Page<Chantier> (status draft)
 *   POST drafts/:id/promote                           PromoteInput → Chantier (planned, with its jobs and tasks)
 *   POST drafts/:id/reject                            RejectInput → Chantier (rejected)
 *   GET  registries/:kind?status&q&cursor&limit       → Page<RegistryRecord>  (kind: runs|questions|negociations|conseils)
 *   GET  registries/:kind/:id                         → RegistryDetail
 *   POST registries/questions/:id/answer              AnswerInput → RegistryRecord
 *   POST registries/negociations/:id/outcome          OutcomeInput → RegistryRecord
 *   POST registries/conseils/:id/advice               AdviceInput → RegistryRecord
 *   POST registries/runs/:id/close                    CloseInput → RegistryRecord
 *   POST registries/:kind/:id/cancel                  CancelInput → RegistryRecord
 * The existing POST chantiers/:id/confirm (from the message page) is draft → planned.
 * A chantier created in the hub (POST chantiers) starts planned; drafts come from the classifier.
 * A task moved inside its column: PATCH tasks/:id { position }; to another column: transition { to, position }.
 * List `total` counts every match (for the table's pager); `nextCursor` pages on.
 */
export const ROUTES_BASE = '/api/worksites'

export const ERROR_CODES = [
  'not_found', 'bad_input', 'illegal_transition', 'has_open_children', 'cross_project',
  'unknown_owner', 'unknown_tenant', 'reason_required', 'not_draft', 'too_long',
] as const
export type WorksitesErrorCode = typeof ERROR_CODES[number]
/**
 * `data` of an error: { code } plus, for illegal_transition: entity, from, to, allowed;
 * has_open_children: open; bad_input and too_long (a text over its maximum, e.g. a title over
 * 300 characters): issues (zod's) and field.
 */
export interface WorksitesErrorData {
  code: WorksitesErrorCode
  entity?: string
  from?: string
  to?: string
  allowed?: string[]
  open?: number
  issues?: unknown[]
}

export const EntitySchema = z.enum(ENTITIES)
export const ProjectStatusSchema = z.enum(PROJECT_STATUSES)
export const ChantierStatusSchema = z.enum(CHANTIER_STATUSES)
export const WorkItemStatusSchema = z.enum(WORK_ITEM_STATUSES)
export const ScopeSchema = z.enum(SCOPES)
export const IterationOutcomeSchema = z.enum(ITERATION_OUTCOMES)

const Title = z.string().trim().min(1).max(TITLE_MAX)
const LongText = z.string().max(TEXT_MAX)
const Reason = z.string().trim().min(1).max(REASON_MAX)

/** An agent of the registry (by codename) or a hub user (by id); null = nobody. */
export const OwnerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('agent'), codename: z.string().min(1).max(64) }),
  z.object({ kind: z.literal('user'), id: z.uuid() }),
]).nullable()
export type Owner = z.infer<typeof OwnerSchema>
/** An owner as the routes return it: with a display name (agent's name, user's e-mail) when known. */
export type OwnerView = (NonNullable<Owner> & { name: string | null }) | null

// ---------- outputs (declared by the core that builds them, next to their SQL) ----------
export type { Page } from '../core/paging'
export type { Chantier, Job, Project, Task } from '../core/views'
export type { Board, TaskCard } from '../core/board'
export type { Iteration } from '../core/iterations'
export type { Timeline, TimelineItem } from '../core/timeline'
export { TIMELINE_KINDS, type Vocabulary } from '../core/vocabulary'
export type { RecallResult } from '../core/pre-creation-recall'
export type { RegistryDetail, RegistryRecord } from '../core/registry-actions'

// ---------- registries ----------

export const REGISTRY_KINDS = ['runs', 'questions', 'negociations', 'conseils'] as const
export type RegistryKind = typeof REGISTRY_KINDS[number]
export const RegistryKindSchema = z.enum(REGISTRY_KINDS)

// ---------- inputs ----------

const Cursor = z.string().max(500)
const Limit = z.coerce.number().int().min(1).max(LIMIT_MAX).default(50)
export const SORTS = ['updatedAt', '-updatedAt', 'createdAt', '-createdAt', 'title', '-title', 'status', '-status'] as const

export const ProjectListQuery = z.object({
  tenantId: z.uuid().optional(),
  status: ProjectStatusSchema.optional(),
  q: z.string().max(TITLE_MAX).optional(),
  sort: z.enum(SORTS).default('-updatedAt'),
  cursor: Cursor.optional(),
  limit: Limit,
})
export const ItemListQuery = z.object({
  projectId: z.uuid().optional(),
  chantierId: z.uuid().optional(),
  jobId: z.uuid().optional(),
  /** Checked against the entity's statuses by the route (unknown → 400 bad_input). */
  status: z.string().max(40).optional(),
  scope: ScopeSchema.optional(),
  /** `agent:<codename>`, `user:<id>` or `none`. */
  owner: z.string().max(100).optional(),
  q: z.string().max(TITLE_MAX).optional(),
  sort: z.enum([...SORTS, 'position', '-position']).default('-updatedAt'),
  cursor: Cursor.optional(),
  limit: Limit,
})

export const ProjectCreate = z.object({
  tenantId: z.uuid().nullable().optional(),
  name: Title,
  repository: z.string().trim().max(500).nullable().optional(),
  missionBrief: LongText.optional(),
  owner: OwnerSchema.optional(),
})
export const ProjectPatch = z.object({
  name: Title.optional(),
  repository: z.string().trim().max(500).nullable().optional(),
  missionBrief: LongText.optional(),
  tenantId: z.uuid().nullable().optional(),
})
export const ChantierCreate = z.object({ projectId: z.uuid(), title: Title, brief: LongText.default(''), owner: OwnerSchema.optional() })
export const ChantierPatch = z.object({ title: Title.optional(), brief: LongText.optional(), projectId: z.uuid().optional() })
export const JobCreate = z.object({ chantierId: z.uuid(), title: Title, description: LongText.default(''), scope: ScopeSchema.optional(), owner: OwnerSchema.optional() })
export const JobPatch = z.object({ title: Title.optional(), description: LongText.optional(), scope: ScopeSchema.optional() })
/** projectId is optional: when given it must be the job's project (else 400 cross_project). */
export const TaskCreate = z.object({ jobId: z.uuid(), projectId: z.uuid().optional(), title: Title, description: LongText.default(''), scope: ScopeSchema.optional(), owner: OwnerSchema.optional() })
/** Moving a task to another job keeps it in its project (another project's job → 400 cross_project). */
export const TaskPatch = z.object({
  title: Title.optional(),
  description: LongText.optional(),
  scope: ScopeSchema.optional(),
  position: z.number().int().min(0).max(1_000_000_000).optional(),
  jobId: z.uuid().optional(),
})

/** `to` is checked against the entity's statuses by the route: unknown → 400, not allowed → 409. */
export const TransitionInput = z.object({
  to: z.string().min(1).max(40),
  reason: Reason.optional(),
  position: z.number().int().min(0).max(1_000_000_000).optional(),
})
export const AssignInput = z.object({ owner: OwnerSchema })
export const RecallInput = z.object({ title: Title, description: LongText.optional(), tenantId: z.uuid().optional() })

export const PromoteInput = z.object({
  projectId: z.uuid(),
  title: Title.optional(),
  brief: LongText.optional(),
  jobs: z
    .array(
      z.object({ title: Title, description: LongText.optional(), scope: ScopeSchema.optional(), tasks: z.array(Title).max(50).optional() }),
    )
    .max(50)
    .default([]),
})
export const RejectInput = z.object({ reason: Reason })

export const AnswerInput = z.object({ answer: z.string().trim().min(1).max(TEXT_MAX) })
export const OutcomeInput = z.object({ outcome: z.enum(['won', 'lost']), note: z.string().trim().max(REASON_MAX).optional() })
export const AdviceInput = z.object({ advice: z.string().trim().min(1).max(TEXT_MAX) })
export const CloseInput = z.object({ outcome: z.enum(['done', 'cancelled']), note: z.string().trim().max(REASON_MAX).optional() })
export const CancelInput = z.object({ reason: Reason })

export type ProjectListQueryT = z.infer<typeof ProjectListQuery>
export type ItemListQueryT = z.infer<typeof ItemListQuery>
export type ProjectCreateT = z.infer<typeof ProjectCreate>
export type ProjectPatchT = z.infer<typeof ProjectPatch>
export type ChantierCreateT = z.infer<typeof ChantierCreate>
export type ChantierPatchT = z.infer<typeof ChantierPatch>
export type JobCreateT = z.infer<typeof JobCreate>
export type JobPatchT = z.infer<typeof JobPatch>
export type TaskCreateT = z.infer<typeof TaskCreate>
export type TaskPatchT = z.infer<typeof TaskPatch>
export type TransitionInputT = z.infer<typeof TransitionInput>
export type AssignInputT = z.infer<typeof AssignInput>
export type RecallInputT = z.infer<typeof RecallInput>
export type PromoteInputT = z.infer<typeof PromoteInput>
export type RejectInputT = z.infer<typeof RejectInput>
