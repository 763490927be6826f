// The board of a project: one column per task status (vocabulary order), cards by position.
// One indexed query (work_tasks_board_idx: project, status, position) joined to the job and
// chantier titles; the bench worksites.board_ms_1k measures it on 1,000 tasks.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import type { OwnerView } from '../shared/api'
import { notFound } from './errors'
import { ownerJson, parseOwner } from './owners'
import { iso } from './paging'
import { getProject } from './projects'
import type { Project } from './views'
import { statusLabel, TRANSITIONS, WORK_ITEM_STATUSES, type Scope, type WorkItemStatus } from './vocabulary'

export interface TaskCard {
  id: string
  title: string
  status: WorkItemStatus
  scope: Scope
  position: number
  jobId: string
  jobTitle: string
  chantierId: string
  chantierTitle: string
  owner: OwnerView
  updatedAt: string
}

export interface Board {
  project: Project
  columns: Array<{ status: WorkItemStatus, label: string, tasks: TaskCard[] }>
  /** The task transitions (from → to[]): a card may only be dropped in an allowed column. */
  transitions: Record<string, readonly string[]>
}

export async function boardCards(db: Pick<Db, 'execute'>, projectId: string): Promise<TaskCard[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select t.id, t.title, t.status, t.scope, t.position, t.job_id as "jobId", j.title as "jobTitle", t.chantier_id as "chantierId", ch.title as "chantierTitle",
      ${ownerJson('t')} as owner, ${iso(sql`t.updated_at`)} as "updatedAt"
    from work_tasks t join work_jobs j on j.id = t.job_id join work_chantiers ch on ch.id = t.chantier_id
    where t.project_id = ${projectId}::uuid
    order by t.status, t.position, t.id`)
  return rows.map(row => ({ ...row, owner: parseOwner(row.owner) }) as unknown as TaskCard)
}

export async function projectBoard(db: Pick<Db, 'execute'>, projectId: string): Promise<Board> {
  // Both at once (two pooled connections): the cards of a missing project are simply none.
  const [project, cards] = await Promise.all([getProject(db, projectId), boardCards(db, projectId)])
  if (!project) throw notFound('project', projectId)
  const columns = WORK_ITEM_STATUSES.map(status => ({
    status,
    label: statusLabel(status),
    tasks: cards.filter(card => card.status === status),
  }))
  return { project, columns, transitions: TRANSITIONS.task }
}
