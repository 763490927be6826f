// Chantiers, jobs and tasks: lists (filters, sort, cursor), details, creation and edits. A
// chantier created in the hub starts planned (a person placed it; drafts come from the
// classifier); a job needs a chantier placed in a project; a task lives in its job's project
// (another project's job is a 400 cross_project, and the composite keys refuse it anyway).
import { eq, sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from '#db/client'
import { recordAudit } from '#db/audit'
import { workChantiers } from '#db/schema/work'
import { workJobs, workProjects, workTasks } from '#db/schema/worksites'
import type { ChantierCreateT, ChantierPatchT, ItemListQueryT, JobCreateT, JobPatchT, TaskCreateT, TaskPatchT } from '../shared/api'
import { notFound, WorksitesError } from './errors'
import { recordHistory } from './history'
import { ownerColumnsFor, ownerFilter } from './owners'
import { keyset, likePattern, pageOf, type Page, type SortColumn } from './paging'
import { placeTask } from './transitions'
import { one, selectChantiers, selectJobs, selectTasks, type Chantier, type EntityView, type Job, type Task } from './views'
import { isStatus, STATUSES } from './vocabulary'

export type ItemEntity = 'chantier' | 'job' | 'task'
type ItemOf<E extends ItemEntity> = EntityView<E>

const ALIAS = { chantier: 'ch', job: 'j', task: 't' } as const
const SELECT = { chantier: selectChantiers, job: selectJobs, task: selectTasks } as const

function sorts(alias: string): Record<string, SortColumn> {
  const c = (name: string) => sql.raw(`${alias}.${name}`)
  return {
    updatedAt: { expr: sql`${c('updated_at')}`, type: 'timestamptz' },
    createdAt: { expr: sql`${c('created_at')}`, type: 'timestamptz' },
    title: { expr: sql`${c('title')}`, type: 'text' },
    status: { expr: sql`${c('status')}`, type: 'text' },
    ...(alias === 'ch' ? {} : { position: { expr: sql`${c('position')}`, type: 'integer' as const } }),
  }
}

export async function listItems<E extends ItemEntity>(db: Db, entity: E, query: ItemListQueryT): Promise<Page<ItemOf<E>>> {
  const alias = ALIAS[entity]
  const c = (name: string) => sql.raw(`${alias}.${name}`)
  if (query.status !== undefined && !isStatus(entity, query.status)) {
    throw new WorksitesError(400, 'bad_input', `"${query.status}" is not a ${entity} status (${STATUSES[entity].join(', ')}).`, { field: 'status' })
  }
  const filters: SQL[] = [
    query.projectId ? sql`${c('project_id')} = ${query.projectId}::uuid` : sql`true`,
    query.chantierId ? sql`${entity === 'chantier' ? c('id') : c('chantier_id')} = ${query.chantierId}::uuid` : sql`true`,
    query.jobId ? (entity === 'task' ? sql`${c('job_id')} = ${query.jobId}::uuid` : entity === 'job' ? sql`${c('id')} = ${query.jobId}::uuid` : sql`false`) : sql`true`,
    query.status ? sql`${c('status')} = ${query.status}` : sql`true`,
    query.scope && entity !== 'chantier' ? sql`${c('scope')} = ${query.scope}` : sql`true`,
    ownerFilter(alias, query.owner),
    query.q ? sql`${c('title')} ilike ${likePattern(query.q)}` : sql`true`,
  ]
  const where = sql.join(filters, sql` and `)
  const page = keyset(query.sort, sorts(alias), c('id'), query.cursor)
  const rows = await SELECT[entity](db, { where: sql`${where} and ${page.where}`, orderBy: page.orderBy, limit: query.limit + 1, key: page.key })
  const table = sql.raw(entity === 'chantier' ? 'work_chantiers' : entity === 'job' ? 'work_jobs' : 'work_tasks')
  const [count] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${table} ${sql.raw(alias)} where ${where}`)
  return { ...pageOf(rows as unknown as Array<ItemOf<E> & { sortKey: string | null }>, query.limit), total: count?.n ?? 0 }
}

export async function getItem<E extends ItemEntity>(db: Pick<Db, 'execute'>, entity: E, id: string): Promise<ItemOf<E> | null> {
  const rows = SELECT[entity](db, { where: sql`${sql.raw(ALIAS[entity])}.id = ${id}::uuid` }) as Promise<unknown> as Promise<Array<ItemOf<E> & { sortKey: string | null }>>
  return await one(rows)
}

async function projectExists(tx: Pick<Tx, 'select'>, projectId: string): Promise<void> {
  const [project] = await tx.select({ id: workProjects.id }).from(workProjects).where(eq(workProjects.id, projectId)).limit(1)
  if (!project) throw new WorksitesError(404, 'not_found', `No project ${projectId}.`, { entity: 'project', field: 'projectId' })
}

export async function createChantier(db: Db, input: ChantierCreateT, actor: string): Promise<Chantier> {
  const id = await db.transaction(async (tx) => {
    await projectExists(tx, input.projectId)
    const owner = await ownerColumnsFor(tx, input.owner)
    const [project] = await tx.select({ tenantId: workProjects.tenantId }).from(workProjects).where(eq(workProjects.id, input.projectId))
    const [row] = await tx.insert(workChantiers).values({
      projectId: input.projectId, tenantId: project?.tenantId ?? null, title: input.title, brief: input.brief, status: 'planned', createdBy: actor, ...owner,
    }).returning({ id: workChantiers.id })
    await recordHistory(tx, { entity: 'chantier', id: row!.id, kind: 'created', to: 'planned', owner: input.owner, actor })
    return row!.id
  })
  return (await getItem(db, 'chantier', id))!
}

/** Inserts a job under a chantier placed in a project (used by creation and by promotion). */
export async function insertJob(tx: Tx, input: JobCreateT, actor: string): Promise<string> {
  const [chantier] = await tx
    .select({ projectId: workChantiers.projectId })
    .from(workChantiers)
    .where(eq(workChantiers.id, input.chantierId))
    .limit(1)
  if (!chantier) throw new WorksitesError(404, 'not_found', `No chantier ${input.chantierId}.`, { entity: 'chantier', field: 'chantierId' })
  if (!chantier.projectId) throw new WorksitesError(409, 'bad_input', 'The chantier is not placed in a project yet: promote it (or set its project) first.', { field: 'chantierId' })
  const owner = await ownerColumnsFor(tx, input.owner)
  const [position] = await tx.execute<{ n: number }>(sql`select count(*)::int as n from work_jobs where chantier_id = ${input.chantierId}::uuid`)
  const [row] = await tx.insert(workJobs).values({
    projectId: chantier.projectId, chantierId: input.chantierId, title: input.title, description: input.description, scope: input.scope ?? 'code',
    position: position?.n ?? 0, createdBy: actor, ...owner,
  }).returning({ id: workJobs.id })
  await recordHistory(tx, { entity: 'job', id: row!.id, kind: 'created', to: 'todo', owner: input.owner, actor })
  return row!.id
}

export async function createJob(db: Db, input: JobCreateT, actor: string): Promise<Job> {
  const id = await db.transaction(tx => insertJob(tx, input, actor))
  return (await getItem(db, 'job', id))!
}

/** Inserts a task at the end of its project's todo column. */
export async function insertTask(tx: Tx, input: TaskCreateT, actor: string): Promise<string> {
  const [job] = await tx
    .select({ projectId: workJobs.projectId, chantierId: workJobs.chantierId })
    .from(workJobs)
    .where(eq(workJobs.id, input.jobId))
    .limit(1)
  if (!job) throw new WorksitesError(404, 'not_found', `No job ${input.jobId}.`, { entity: 'job', field: 'jobId' })
  if (input.projectId && input.projectId !== job.projectId) {
    throw new WorksitesError(400, 'cross_project', 'The job belongs to another project: a task lives in its job\'s project.', { field: 'jobId', jobProjectId: job.projectId })
  }
  const owner = await ownerColumnsFor(tx, input.owner)
  const [end] = await tx.execute<{ n: number }>(sql`select coalesce(max(position) + 1, 0)::int as n from work_tasks where project_id = ${job.projectId}::uuid and status = 'todo'`)
  const [row] = await tx.insert(workTasks).values({
    projectId: job.projectId, chantierId: job.chantierId, jobId: input.jobId, title: input.title, description: input.description, scope: input.scope ?? 'code',
    position: end?.n ?? 0, createdBy: actor, ...owner,
  }).returning({ id: workTasks.id })
  await recordHistory(tx, { entity: 'task', id: row!.id, kind: 'created', to: 'todo', owner: input.owner, actor })
  return row!.id
}

export async function createTask(db: Db, input: TaskCreateT, actor: string): Promise<Task> {
  const id = await db.transaction(tx => insertTask(tx, input, actor))
  return (await getItem(db, 'task', id))!
}

const defined = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined))

export async function patchChantier(db: Db, id: string, patch: ChantierPatchT, actor: string): Promise<Chantier> {
  await db.transaction(async (tx) => {
    const [current] = await tx.select({ id: workChantiers.id }).from(workChantiers).where(eq(workChantiers.id, id)).for('update')
    if (!current) throw notFound('chantier', id)
    if (patch.projectId) await projectExists(tx, patch.projectId)
    // A chantier moved to another project takes its jobs and tasks along (ON UPDATE CASCADE).
    const values = defined({ title: patch.title, brief: patch.brief, projectId: patch.projectId })
    await tx.update(workChantiers).set({ ...values, updatedAt: new Date() }).where(eq(workChantiers.id, id))
    await recordEdit(tx, 'chantier', id, Object.keys(values), actor)
  })
  return (await getItem(db, 'chantier', id))!
}

export async function patchJob(db: Db, id: string, patch: JobPatchT, actor: string): Promise<Job> {
  await db.transaction(async (tx) => {
    const [current] = await tx.select({ id: workJobs.id }).from(workJobs).where(eq(workJobs.id, id)).for('update')
    if (!current) throw notFound('job', id)
    const values = defined({ title: patch.title, description: patch.description, scope: patch.scope })
    await tx.update(workJobs).set({ ...values, updatedAt: new Date() }).where(eq(workJobs.id, id))
    await recordEdit(tx, 'job', id, Object.keys(values), actor)
  })
  return (await getItem(db, 'job', id))!
}

export async function patchTask(db: Db, id: string, patch: TaskPatchT, actor: string): Promise<Task> {
  await db.transaction(async (tx) => {
    const [current] = await tx.select({ projectId: workTasks.projectId }).from(workTasks).where(eq(workTasks.id, id)).for('update')
    if (!current) throw notFound('task', id)
    let move = {}
    if (patch.jobId) {
      const [job] = await tx
        .select({ projectId: workJobs.projectId, chantierId: workJobs.chantierId })
        .from(workJobs)
        .where(eq(workJobs.id, patch.jobId))
        .limit(1)
      if (!job) throw new WorksitesError(404, 'not_found', `No job ${patch.jobId}.`, { entity: 'job', field: 'jobId' })
      if (job.projectId !== current.projectId) throw new WorksitesError(400, 'cross_project', 'The job belongs to another project: a task stays in its project.', { field: 'jobId' })
      move = { jobId: patch.jobId, chantierId: job.chantierId }
    }
    const values = defined({ title: patch.title, description: patch.description, scope: patch.scope, ...move })
    await tx.update(workTasks).set({ ...values, updatedAt: new Date() }).where(eq(workTasks.id, id))
    if (patch.position !== undefined) await placeTask(tx, id, patch.position)
    await recordEdit(tx, 'task', id, [...Object.keys(values), ...(patch.position !== undefined ? ['position'] : [])], actor)
  })
  return (await getItem(db, 'task', id))!
}

async function recordEdit(tx: Tx, entity: ItemEntity, id: string, fields: string[], actor: string): Promise<void> {
  await recordAudit(tx, { actor, action: `worksites.${entity}_edited`, target: `work_${entity}:${id}`, details: { edited: fields } })
}
