// The entities as the API returns them (Project, Chantier, Job, Task), read in
// one SQL statement each, with their parent's names, their owner and their counts. Lists and
// details share these selects: the list adds its filters, order and cursor key.
import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { OwnerView } from '../shared/api'
import { parseOwner, ownerJson } from './owners'
import { iso } from './paging'
import type { ChantierStatus, Entity, ProjectStatus, Scope, WorkItemStatus } from './vocabulary'

type Exec = Pick<Db, 'execute'>

export interface Project {
  id: string
  tenantId: string | null
  tenantName: string | null
  name: string
  repository: string | null
  missionBrief: string
  status: ProjectStatus
  owner: OwnerView
  openChantiers: number
  createdBy: string
  createdAt: string
  updatedAt: string
}

export interface Chantier {
  id: string
  projectId: string | null
  projectName: string | null
  tenantId: string | null
  title: string
  brief: string
  status: ChantierStatus
  /** Why it was rejected or cancelled (null otherwise). */
  statusReason: string | null
  owner: OwnerView
  /** The message it was drafted from (null when a person created it in the hub). */
  sourceMessageId: number | null
  messageCount: number
  requesterEmail: string | null
  jobCount: number
  createdBy: string
  createdAt: string
  updatedAt: string
}

export interface Job {
  id: string
  projectId: string
  chantierId: string
  chantierTitle: string
  title: string
  description: string
  status: WorkItemStatus
  scope: Scope
  owner: OwnerView
  taskCount: number
  createdBy: string
  createdAt: string
  updatedAt: string
}

export interface Task {
  id: string
  projectId: string
  chantierId: string
  chantierTitle: string
  jobId: string
  jobTitle: string
  title: string
  description: string
  status: WorkItemStatus
  scope: Scope
  /** Order inside its board column (ascending). */
  position: number
  owner: OwnerView
  iterationCount: number
  createdBy: string
  createdAt: string
  updatedAt: string
}

/** The view each level's routes return (detail, transition, assignment). */
export type EntityView<E extends Entity> = E extends 'project' ? Project : E extends 'chantier' ? Chantier : E extends 'job' ? Job : Task

export interface Select { where?: SQL, orderBy?: SQL, limit?: number, key?: SQL }

const tail = (s: Select) => sql`where ${s.where ?? sql`true`} ${s.orderBy ? sql`order by ${s.orderBy}` : sql``} ${s.limit ? sql`limit ${s.limit}` : sql``}`
const keyOf = (s: Select) => s.key ?? sql`null::text`
type Keyed<T> = T & { sortKey: string | null }

export async function selectProjects(db: Exec, s: Select = {}): Promise<Array<Keyed<Project>>> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select p.id, p.tenant_id as "tenantId", c.name as "tenantName", p.name, p.repository, p.mission_brief as "missionBrief", p.status,
      ${ownerJson('p')} as owner,
      (select count(*)::int from work_chantiers ch where ch.project_id = p.id and ch.status in ('draft', 'planned', 'active')) as "openChantiers",
      p.created_by as "createdBy", ${iso(sql`p.created_at`)} as "createdAt", ${iso(sql`p.updated_at`)} as "updatedAt", ${keyOf(s)} as "sortKey"
    from work_projects p left join clients c on c.id = p.tenant_id
    ${tail(s)}`)
  return rows.map(row => ({ ...row, owner: parseOwner(row.owner) }) as unknown as Keyed<Project>)
}

export async function selectChantiers(db: Exec, s: Select = {}): Promise<Array<Keyed<Chantier>>> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select ch.id, ch.project_id as "projectId", p.name as "projectName", ch.tenant_id as "tenantId", ch.title, ch.brief, ch.status,
      ch.status_reason as "statusReason", ${ownerJson('ch')} as owner, ch.source_message_id::float8 as "sourceMessageId",
      ch.message_count as "messageCount", ch.requester_email as "requesterEmail",
      (select count(*)::int from work_jobs j where j.chantier_id = ch.id) as "jobCount",
      ch.created_by as "createdBy", ${iso(sql`ch.created_at`)} as "createdAt", ${iso(sql`ch.updated_at`)} as "updatedAt", ${keyOf(s)} as "sortKey"
    from work_chantiers ch left join work_projects p on p.id = ch.project_id
    ${tail(s)}`)
  return rows.map(row => ({ ...row, owner: parseOwner(row.owner) }) as unknown as Keyed<Chantier>)
}

export async function selectJobs(db: Exec, s: Select = {}): Promise<Array<Keyed<Job>>> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select j.id, j.project_id as "projectId", j.chantier_id as "chantierId", ch.title as "chantierTitle", j.title, j.description, j.status, j.scope,
      ${ownerJson('j')} as owner, (select count(*)::int from work_tasks t where t.job_id = j.id) as "taskCount",
      j.created_by as "createdBy", ${iso(sql`j.created_at`)} as "createdAt", ${iso(sql`j.updated_at`)} as "updatedAt", ${keyOf(s)} as "sortKey"
    from work_jobs j join work_chantiers ch on ch.id = j.chantier_id
    ${tail(s)}`)
  return rows.map(row => ({ ...row, owner: parseOwner(row.owner) }) as unknown as Keyed<Job>)
}

export async function selectTasks(db: Exec, s: Select = {}): Promise<Array<Keyed<Task>>> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select t.id, t.project_id as "projectId", t.chantier_id as "chantierId", ch.title as "chantierTitle", t.job_id as "jobId", j.title as "jobTitle",
      t.title, t.description, t.status, t.scope, t.position, ${ownerJson('t')} as owner,
      (select count(*)::int from work_iterations i where i.task_id = t.id) as "iterationCount",
      t.created_by as "createdBy", ${iso(sql`t.created_at`)} as "createdAt", ${iso(sql`t.updated_at`)} as "updatedAt", ${keyOf(s)} as "sortKey"
    from work_tasks t join work_jobs j on j.id = t.job_id join work_chantiers ch on ch.id = t.chantier_id
    ${tail(s)}`)
  return rows.map(row => ({ ...row, owner: parseOwner(row.owner) }) as unknown as Keyed<Task>)
}

/** One entity by id, without the list's cursor key. */
export async function one<T>(rows: Promise<Array<Keyed<T>>>): Promise<T | null> {
  const [row] = await rows
  if (!row) return null
  const { sortKey: _key, ...view } = row
  return view as unknown as T
}
