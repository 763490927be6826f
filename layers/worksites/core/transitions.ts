// Status changes and assignments of projects, chantiers, jobs and tasks. A status outside the
// entity's vocabulary is a 400; a move the transition table does not allow is a 409 naming
// the allowed ones; rejecting or cancelling a chantier needs a reason. Each change is one
// transaction with its history row (history.ts). Tasks also take their place in the target
// board column (`position`, else the end of the column).
import { eq, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client'
import type { Owner } from '../shared/api'
import { badInput, illegalTransition, notFound, WorksitesError } from './errors'
import { recordHistory } from './history'
import { ownerColumnsFor } from './owners'
import { ENTITY_TABLES } from './tables'
import { canTransition, isStatus, reasonRequired, STATUSES, type Entity } from './vocabulary'

export interface TransitionRequest {
  to: string
  reason?: string
  /** Tasks: the index in the target column (0 = top); absent = the end. */
  position?: number
  actor: string
}

export interface TransitionDone { entity: Entity, id: string, from: string, to: string }

export async function transition(db: Db, entity: Entity, id: string, request: TransitionRequest): Promise<TransitionDone> {
  const { to } = request
  if (!isStatus(entity, to)) {
    throw new WorksitesError(400, 'bad_input', `"${to}" is not a ${entity} status (${STATUSES[entity].join(', ')}).`, { field: 'to', statuses: [...STATUSES[entity]] })
  }
  if (reasonRequired(entity, to) && !request.reason?.trim()) {
    throw new WorksitesError(400, 'reason_required', `A ${entity} moved to ${to} needs a reason.`, { field: 'reason' })
  }
  return await db.transaction(async (tx) => {
    const table = ENTITY_TABLES[entity]
    const [current] = await tx.select({ status: table.status }).from(table).where(eq(table.id, id)).for('update')
    if (!current) throw notFound(entity, id)
    const from = current.status
    if (!canTransition(entity, from, to)) throw illegalTransition(entity, from, to)
    const extra = entity === 'chantier' ? { statusReason: to === 'rejected' || to === 'cancelled' ? request.reason!.trim() : null } : {}
    await tx.update(table).set({ status: to, updatedAt: new Date(), ...extra }).where(eq(table.id, id))
    if (entity === 'task') {
      await placeTask(tx, id, request.position)
      await compactColumn(tx, id, from)
    }
    await recordHistory(tx, { entity, id, kind: 'transition', from, to, reason: request.reason?.trim() || null, actor: request.actor })
    return { entity, id, from, to }
  })
}

/**
 * Puts a task at `index` of its board column (the project's tasks of its status), shifting the
 * others; the column is renumbered 0..n-1 so positions stay dense. Absent index: the end.
 */
export async function placeTask(tx: Pick<Tx, 'execute'>, taskId: string, index?: number): Promise<void> {
  const [task] = await tx.execute<{ project_id: string, status: string, others: number }>(sql`
    select t.project_id, t.status, (select count(*)::int from work_tasks o where o.project_id = t.project_id and o.status = t.status and o.id <> t.id) as others
    from work_tasks t where t.id = ${taskId}::uuid`)
  if (!task) return
  const at = Math.min(index ?? task.others, task.others)
  await tx.execute(sql`
    with ordered as (
      select id, (row_number() over (order by position, updated_at, id) - 1)::int as rn
      from work_tasks where project_id = ${task.project_id}::uuid and status = ${task.status} and id <> ${taskId}::uuid
    )
    update work_tasks t set position = case when o.rn >= ${at} then o.rn + 1 else o.rn end
    from ordered o where t.id = o.id and t.position is distinct from (case when o.rn >= ${at} then o.rn + 1 else o.rn end)`)
  await tx.execute(sql`update work_tasks set position = ${at} where id = ${taskId}::uuid`)
}

/** Renumbers the column a task left (its project's tasks of status `status`) 0..n-1. */
async function compactColumn(tx: Pick<Tx, 'execute'>, taskId: string, status: string): Promise<void> {
  await tx.execute(sql`
    with ordered as (
      select o.id, (row_number() over (order by o.position, o.updated_at, o.id) - 1)::int as rn
      from work_tasks o where o.project_id = (select project_id from work_tasks where id = ${taskId}::uuid) and o.status = ${status}
    )
    update work_tasks t set position = o.rn from ordered o where t.id = o.id and t.position <> o.rn`)
}

export async function assign(db: Db, entity: Entity, id: string, owner: Owner, actor: string): Promise<void> {
  await db.transaction(async (tx) => {
    const table = ENTITY_TABLES[entity]
    const [current] = await tx.select({ id: table.id }).from(table).where(eq(table.id, id)).for('update')
    if (!current) throw notFound(entity, id)
    const columns = await ownerColumnsFor(tx, owner)
    if (!columns) throw badInput('owner is required (null to unassign).', 'owner')
    await tx.update(table).set({ ...columns, updatedAt: new Date() }).where(eq(table.id, id))
    await recordHistory(tx, { entity, id, kind: 'assignment', owner, actor })
  })
}
