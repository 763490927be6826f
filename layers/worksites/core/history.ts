// The history of the worksites entities: every creation, status change and assignment in
// work_transitions (the timelines read it), and every person's action in hub_audit as well
// (the hub's one record of human actions). Written in the transaction of the change itself.
import type { Tx } from '#db/client'
import { recordAudit } from '#db/audit'
import { workTransitions } from '#db/schema/worksites'
import type { Owner } from '../shared/api'

export type HistoryEntity = 'project' | 'chantier' | 'job' | 'task' | 'run' | 'question' | 'negociation' | 'conseil'

export interface HistoryEntry {
  entity: HistoryEntity
  id: string
  kind: 'created' | 'transition' | 'assignment'
  from?: string | null
  to?: string | null
  owner?: Owner
  reason?: string | null
  actor: string
  /** Extra details for hub_audit only (what else the action carried). */
  details?: Record<string, unknown>
}

export async function recordHistory(tx: Pick<Tx, 'insert'>, entry: HistoryEntry): Promise<void> {
  await tx.insert(workTransitions).values({
    entity: entry.entity,
    entityId: entry.id,
    kind: entry.kind,
    fromStatus: entry.from ?? null,
    toStatus: entry.to ?? null,
    owner: entry.owner === undefined ? null : (entry.owner as Record<string, unknown> | null),
    reason: entry.reason ?? null,
    actor: entry.actor,
  })
  const action = entry.kind === 'created' ? 'created' : entry.kind === 'assignment' ? 'assigned' : 'transitioned'
  await recordAudit(tx, {
    actor: entry.actor,
    action: `worksites.${entry.entity}_${action}`,
    target: `work_${entry.entity}:${entry.id}`,
    details: {
      from: entry.from ?? undefined,
      to: entry.to ?? undefined,
      owner: entry.owner ?? undefined,
      reason: entry.reason ?? undefined,
      ...entry.details,
    },
  })
}
