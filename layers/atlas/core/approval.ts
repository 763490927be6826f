// An operator's decision on a message waiting in `awaiting_approval` (core/admission.ts):
// approving it puts it back to `classified` with admission `approved`, so the spawn
// orchestrator's next cycle queues it by its normal path; rejecting it ends it (`rejected`)
// and cancels the work record its classification materialised. Who and when go to the
// tracking row, the pipeline's trail and the hub's human-action log, in one transaction.
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { atlasInbox } from '#db/schema/atlas'
import { cancelRecord, isWorkKind } from '#layers/worksites/core/registries'
import { recordAtlasAudit } from './audit'
import { clip } from './text'

export type ApprovalDecision = 'approve' | 'reject'

export type ApprovalResult =
  | { ok: true, messageId: number, status: 'classified' | 'rejected', by: string, at: string }
  | { ok: false, code: 'not_found' }
  | { ok: false, code: 'not_awaiting_approval', status: string }

export async function decideApproval(db: Db, messageId: number, decision: ApprovalDecision, actor: string, note?: string): Promise<ApprovalResult> {
  return await db.transaction(async (tx) => {
    const [current] = await tx.select().from(atlasInbox).where(eq(atlasInbox.messageId, messageId)).for('update')
    if (!current) return { ok: false as const, code: 'not_found' as const }
    if (current.status !== 'awaiting_approval') return { ok: false as const, code: 'not_awaiting_approval' as const, status: current.status }
    const at = new Date()
    const approve = decision === 'approve'
    const cleanNote = note ? clip(note, 500) : undefined
    const status = approve ? 'classified' as const : 'rejected' as const
    const updated = await tx.update(atlasInbox).set({
      status,
      statusReason: approve ? `approved by ${actor}: an agent starts at the next spawn cycle` : `rejected by ${actor}${cleanNote ? `: ${cleanNote}` : ''}`,
      needsHuman: false,
      admission: approve ? 'approved' : 'rejected',
      admissionBy: actor,
      admissionAt: at,
      ...(approve ? {} : { materialisedKind: null, materialisedId: null }),
      revision: sql`${atlasInbox.revision} + 1`,
      updatedAt: at,
    }).where(and(eq(atlasInbox.id, current.id), eq(atlasInbox.status, 'awaiting_approval'))).returning({ id: atlasInbox.id })
    if (updated.length === 0) return { ok: false as const, code: 'not_awaiting_approval' as const, status: current.status }
    if (!approve && current.materialisedKind && current.materialisedId && isWorkKind(current.materialisedKind)) {
      await cancelRecord(tx, current.materialisedKind, current.materialisedId)
    }
    const details = { decision, by: actor, at: at.toISOString(), intent: current.intent, waitedFor: current.admissionReason, note: cleanNote }
    await recordAtlasAudit(tx, { messageId, action: approve ? 'spawn_approved' : 'spawn_rejected', actor, details })
    await recordAudit(tx, { actor, action: approve ? 'atlas.approve' : 'atlas.reject', target: `atlas_message:${messageId}`, details })
    return { ok: true as const, messageId, status, by: actor, at: at.toISOString() }
  })
}
