// An operator asks for a new classification from the hub: the tracking row goes back to
// `received` (its revision moves, so a classification in flight cannot overwrite it) and
// the next collector cycle runs the whole pipeline again — fetching the message anew for
// its attachments, re-scanning them, OCR, model call. Audited in the pipeline trail and
// in the hub's human-action log.
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { atlasInbox } from '#db/schema/atlas'
import { recordAtlasAudit } from './audit'
import { RECLASSIFIABLE_STATUSES } from '#layers/spawn/core/vocabulary'

export type ReclassifyResult
  = | { ok: true, messageId: number, previousStatus: string, previousIntent: string | null }
    | { ok: false, code: 'not_found' }
    | { ok: false, code: 'not_reclassifiable', status: string }

export async function requestReclassification(db: Db, messageId: number, actor: string): Promise<ReclassifyResult> {
  return await db.transaction(async (tx) => {
    const [current] = await tx.select().from(atlasInbox).where(eq(atlasInbox.messageId, messageId)).for('update')
    if (!current) return { ok: false as const, code: 'not_found' as const }
    if (!RECLASSIFIABLE_STATUSES.includes(current.status as never)) return { ok: false as const, code: 'not_reclassifiable' as const, status: current.status }
    const updated = await tx.update(atlasInbox).set({
      status: 'received',
      statusReason: `re-classification requested by ${actor}; the next collector cycle runs the pipeline again`,
      needsHuman: false,
      classifyAttempts: 0,
      reclassifyRequestedBy: actor,
      revision: sql`${atlasInbox.revision} + 1`,
      updatedAt: new Date(),
    }).where(and(eq(atlasInbox.id, current.id), inArray(atlasInbox.status, [...RECLASSIFIABLE_STATUSES]))).returning({ id: atlasInbox.id })
    if (updated.length === 0) return { ok: false as const, code: 'not_reclassifiable' as const, status: current.status }
    const details = {
      previousStatus: current.status,
      previousIntent: current.intent,
      previousConfidence: current.confidence,
      materialised: current.materialisedKind ? { kind: current.materialisedKind, id: current.materialisedId } : undefined,
    }
    await recordAtlasAudit(tx, { messageId, action: 'reclassify_requested', actor, details })
    await recordAudit(tx, { actor, action: 'atlas.reclassify', target: `atlas_message:${messageId}`, details })
    return { ok: true as const, messageId, previousStatus: current.status, previousIntent: current.intent }
  })
}
