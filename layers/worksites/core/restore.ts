// Undo of a change an agent made (issue 35, Deliver 4): a work item's status and owner, or a
// registry record's answer, put back as they were before — but only while the row is still
// exactly as the agent left it (a person who moved it since wins: the undo is refused). An
// undo restores a snapshot, so it may take a move the transition table does not offer
// (answered → open); it is recorded in the history like any change, with who undid it.
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAudit } from '#db/schema/atlas'
import type { Owner } from '../shared/api'
import { recordHistory } from './history'
import { WORK_TABLES } from './registries'
import { ENTITY_TABLES } from './tables'
import { placeTask } from './transitions'

export type ChangeableEntity = 'chantier' | 'job' | 'task'
export interface WorkItemState { status: string, owner: Owner }

const UNDO_REASON = 'undo of an agent\'s change'

const ownerOf = (row: { ownerAgent: string | null, ownerUserId: string | null }): Owner =>
  row.ownerAgent ? { kind: 'agent', codename: row.ownerAgent } : row.ownerUserId ? { kind: 'user', id: row.ownerUserId } : null
const sameOwner = (a: Owner, b: Owner) => JSON.stringify(a) === JSON.stringify(b)

/** A chantier's, job's or task's title, status and owner; null when it does not exist. */
export async function workItemState(db: Pick<Db, 'select'>, entity: ChangeableEntity, id: string): Promise<(WorkItemState & { title: string }) | null> {
  const table = ENTITY_TABLES[entity]
  const [row] = await db
    .select({ title: table.title, status: table.status, ownerAgent: table.ownerAgent, ownerUserId: table.ownerUserId })
    .from(table)
    .where(eq(table.id, id))
  return row ? { title: row.title, status: row.status, owner: ownerOf(row) } : null
}

/**
 * Puts `before` back when the item is still in the `after` state the agent left; false when it
 * is gone or was changed since. The restored status and owner are history rows of `actor`.
 */
export async function restoreWorkItem(
  db: Db,
  entity: ChangeableEntity,
  id: string,
  states: { before: WorkItemState, after: WorkItemState },
  actor: string,
): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const table = ENTITY_TABLES[entity]
    const [row] = await tx
      .select({ status: table.status, ownerAgent: table.ownerAgent, ownerUserId: table.ownerUserId })
      .from(table)
      .where(eq(table.id, id))
      .for('update')
    if (!row || row.status !== states.after.status || !sameOwner(ownerOf(row), states.after.owner)) return false
    const { before } = states
    const owner = before.owner
    // A chantier the agent rejected or cancelled carries its reason: back to a live status, it has none.
    const reason = entity === 'chantier' && row.status !== before.status ? { statusReason: null } : {}
    await tx
      .update(table)
      .set({
        status: before.status,
        ownerAgent: owner?.kind === 'agent' ? owner.codename : null,
        ownerUserId: owner?.kind === 'user' ? owner.id : null,
        updatedAt: new Date(),
        ...reason,
      })
      .where(eq(table.id, id))
    if (row.status !== before.status) {
      if (entity === 'task') await placeTask(tx, id)
      await recordHistory(tx, { entity, id, kind: 'transition', from: row.status, to: before.status, reason: UNDO_REASON, actor })
    }
    if (!sameOwner(ownerOf(row), owner)) await recordHistory(tx, { entity, id, kind: 'assignment', owner, reason: UNDO_REASON, actor })
    return true
  })
}

export type AnswerableKind = 'question' | 'negociation' | 'conseil'
export interface RecordResolution { status: string, resolution: string | null, resolvedBy: string | null, resolvedAt: string | null }

/** A question's, négociation's or conseil's status and resolution; null when it does not exist. */
export async function recordResolution(db: Pick<Db, 'select'>, kind: AnswerableKind, id: string): Promise<(RecordResolution & { title: string }) | null> {
  const table = WORK_TABLES[kind]
  const [row] = await db
    .select({
      title: table.title,
      status: table.status,
      resolution: table.resolution,
      resolvedBy: table.resolvedBy,
      resolvedAt: table.resolvedAt,
    })
    .from(table)
    .where(eq(table.id, id))
  return row
    ? {
        title: row.title,
        status: row.status,
        resolution: row.resolution,
        resolvedBy: row.resolvedBy,
        resolvedAt: row.resolvedAt?.toISOString() ?? null,
      }
    : null
}

/**
 * Re-opens a record the agent resolved: its status and resolution back to `before`, while it
 * still carries the agent's answer (`after`); false otherwise. History and the source
 * message's trail say who undid it.
 */
export async function restoreRecord(db: Db, kind: AnswerableKind, id: string, states: { before: RecordResolution, after: Pick<RecordResolution, 'status' | 'resolution'> }, actor: string): Promise<boolean> {
  return await db.transaction(async (tx) => {
    const table = WORK_TABLES[kind]
    const [row] = await tx.select({ status: table.status, resolution: table.resolution, sourceMessageId: table.sourceMessageId }).from(table).where(eq(table.id, id)).for('update')
    if (!row || row.status !== states.after.status || row.resolution !== states.after.resolution) return false
    const { before } = states
    await tx.update(table).set({
      status: before.status, resolution: before.resolution, resolvedBy: before.resolvedBy,
      resolvedAt: before.resolvedAt ? new Date(before.resolvedAt) : null, updatedAt: new Date(),
    }).where(eq(table.id, id))
    await recordHistory(tx, { entity: kind, id, kind: 'transition', from: row.status, to: before.status, reason: UNDO_REASON, actor })
    if (row.sourceMessageId) {
      await tx.insert(atlasAudit).values({ messageId: row.sourceMessageId, action: 'record_reopened', actor, details: { kind, recordId: id, from: row.status, to: before.status, reason: UNDO_REASON } })
    }
    return true
  })
}
