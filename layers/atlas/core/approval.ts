// An operator's decision on a message waiting in `awaiting_approval` (core/admission.ts).
// A waiting message has its classification but no work record (classify.ts materialises
// nothing for it): approving it creates the record its intent names (materialiseRecord, the
// classifier's own call) and puts it back to `classified` with admission `approved`, so the
// spawn orchestrator's next cycle queues it by its normal path; rejecting it ends it
// (`rejected`) and cancels any record an earlier classification left. Who and when go to the
// tracking row, the pipeline's trail and the hub's human-action log, in ONE transaction that
// holds the tracking row (`for update`): a second or concurrent approval waits, then finds the
// message no longer waiting (`not_awaiting_approval`), so the record is created exactly once.
// The pre-creation recall of the new record runs after the commit (recallApproved), as the
// pipeline runs it after the classification's.
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import type { RecallDeps } from '#layers/memory/core/recall/engine'
import { recallForRecord } from '#layers/worksites/core/pre-creation-recall'
import { cancelRecord, isWorkKind, materialiseRecord, type Materialised, type WorkKind } from '#layers/worksites/core/registries'
import { recordAtlasAudit } from './audit'
import { clip } from '#layers/spawn/core/text'

export type ApprovalDecision = 'approve' | 'reject'

/**
 * The work record an approval left: `created`, `reactivated` (a record of this message an
 * earlier classification had cancelled) or `updated` (the live record of its thread) by this
 * approval, or `kept` (one already linked, left by a classification before this rule).
 */
export interface ApprovedRecord {
  kind: WorkKind
  id: string
  action: Materialised['action'] | 'kept'
}

export type ApprovalResult
  = | { ok: true, messageId: number, status: 'classified' | 'rejected', by: string, at: string, materialised: ApprovedRecord | null }
    | { ok: false, code: 'not_found' }
    | { ok: false, code: 'not_awaiting_approval', status: string }

class NoLongerWaiting extends Error {}

export async function decideApproval(
  db: Db,
  messageId: number,
  decision: ApprovalDecision,
  actor: string,
  note?: string,
): Promise<ApprovalResult> {
  try {
    return await decideInTransaction(db, messageId, decision, actor, note)
  }
  catch (error) {
    if (!(error instanceof NoLongerWaiting)) throw error
    const [now] = await db.select({ status: atlasInbox.status }).from(atlasInbox).where(eq(atlasInbox.messageId, messageId))
    return now ? { ok: false, code: 'not_awaiting_approval', status: now.status } : { ok: false, code: 'not_found' }
  }
}

async function decideInTransaction(
  db: Db,
  messageId: number,
  decision: ApprovalDecision,
  actor: string,
  note?: string,
): Promise<ApprovalResult> {
  return await db.transaction(async (tx) => {
    const [current] = await tx.select().from(atlasInbox).where(eq(atlasInbox.messageId, messageId)).for('update')
    if (!current) return { ok: false as const, code: 'not_found' as const }
    if (current.status !== 'awaiting_approval')
      return { ok: false as const, code: 'not_awaiting_approval' as const, status: current.status }
    const at = new Date()
    const approve = decision === 'approve'
    const cleanNote = note ? clip(note, 500) : undefined
    const status = approve ? ('classified' as const) : ('rejected' as const)
    const linked
      = current.materialisedKind && isWorkKind(current.materialisedKind) && current.materialisedId
        ? { kind: current.materialisedKind, id: current.materialisedId }
        : null
    let materialised: ApprovedRecord | null = null
    if (approve && linked) materialised = { ...linked, action: 'kept' }
    else if (approve && current.intent && isWorkKind(current.intent))
      materialised = await materialiseApproved(tx, messageId, current.intent, current.tenantId, actor)
    const updated = await tx
      .update(atlasInbox)
      .set({
        status,
        statusReason: approve
          ? `approved by ${actor}: an agent starts at the next spawn cycle`
          : `rejected by ${actor}${cleanNote ? `: ${cleanNote}` : ''}`,
        needsHuman: false,
        admission: approve ? 'approved' : 'rejected',
        admissionBy: actor,
        admissionAt: at,
        materialisedKind: materialised?.kind ?? null,
        materialisedId: materialised?.id ?? null,
        revision: sql`${atlasInbox.revision} + 1`,
        updatedAt: at,
      })
      .where(and(eq(atlasInbox.id, current.id), eq(atlasInbox.status, 'awaiting_approval')))
      .returning({ id: atlasInbox.id })
    // Unreachable while the row is held; should it happen, the rollback takes back the record
    // this approval may have written, and the caller hears the message was no longer waiting.
    if (updated.length === 0) throw new NoLongerWaiting()
    if (!approve && linked) await cancelRecord(tx, linked.kind, linked.id)
    const details = {
      decision,
      by: actor,
      at: at.toISOString(),
      intent: current.intent,
      waitedFor: current.admissionReason,
      note: cleanNote,
    }
    await recordAtlasAudit(tx, { messageId, action: approve ? 'spawn_approved' : 'spawn_rejected', actor, details })
    await recordAudit(tx, { actor, action: approve ? 'atlas.approve' : 'atlas.reject', target: `atlas_message:${messageId}`, details })
    if (materialised && materialised.action !== 'kept')
      await recordAtlasAudit(tx, { messageId, action: 'materialised', actor, details: { ...materialised, on: 'approval' } })
    return { ok: true as const, messageId, status, by: actor, at: at.toISOString(), materialised }
  })
}

async function materialiseApproved(tx: Pick<Db, 'select' | 'insert' | 'update' | 'execute'>, messageId: number, kind: WorkKind, tenantId: string | null, actor: string): Promise<ApprovedRecord> {
  const [message] = await tx.select().from(atlasMessages).where(eq(atlasMessages.id, messageId))
  if (!message) throw new Error(`message #${messageId} has a tracking row but no stored message`)
  return await materialiseRecord(tx, { kind, message, tenantId, actor })
}

/**
 * The pre-creation recall for the record an approval created (or brought back), stored with
 * it for the hub; nothing for an updated or kept one (recalled when it was created). Never
 * fails the approval, already committed: a failure is logged, the record stands without it.
 */
export async function recallApproved(deps: { db: RecallDeps['db'], embedder: () => Promise<RecallDeps['embedder']>, log: (line: string) => void }, result: ApprovalResult): Promise<void> {
  if (!result.ok || !result.materialised) return
  const { kind, id, action } = result.materialised
  if (action !== 'created' && action !== 'reactivated') return
  try {
    const [message] = await deps.db
      .select({ subject: atlasMessages.subject, textBody: atlasMessages.textBody })
      .from(atlasMessages)
      .where(eq(atlasMessages.id, result.messageId))
    await recallForRecord({ db: deps.db, embedder: await deps.embedder(), log: deps.log }, { kind, id, title: message?.subject ?? '', body: message?.textBody ?? '' })
  }
  catch (error) {
    deps.log(`[atlas] message ${result.messageId}: storing the recall for the approved ${kind} ${id} failed (${(error as Error).message}); the record stands without it`)
  }
}
