// A person confirms a chantier draft after reading what the memory recalled when it was
// created: draft → planned (the worksites vocabulary's promotion, here without a project or
// jobs: those are added from Worksites). The confirmation names them, in hub_audit, in the
// chantier's history and in the trail of the message it came from, in one transaction.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { atlasAudit } from '#db/schema/atlas'
import { workChantiers } from '#db/schema/work'
import { workTransitions } from '#db/schema/worksites'
import { recordRecall } from './pre-creation-recall'

export const CHANTIER_CONFIRMED_ACTION = 'worksites.chantier_confirmed'

export type ConfirmResult
  = | { ok: true, id: string, status: 'planned', by: string, recalled: number }
    | { ok: false, code: 'not_found' }
    | { ok: false, code: 'not_draft', status: string }

export async function confirmChantier(db: Db, id: string, actor: string): Promise<ConfirmResult> {
  return await db.transaction(async (tx) => {
    const [current] = await tx.select().from(workChantiers).where(eq(workChantiers.id, id)).for('update')
    if (!current) return { ok: false as const, code: 'not_found' as const }
    if (current.status !== 'draft') return { ok: false as const, code: 'not_draft' as const, status: current.status }
    await tx.update(workChantiers).set({ status: 'planned', updatedAt: new Date() }).where(and(eq(workChantiers.id, id), eq(workChantiers.status, 'draft')))
    // What the person had in front of them: the recall's hits, by reference.
    const recall = await recordRecall(tx, 'chantier', id)
    const recalled = recall?.hits.map(hit => `${hit.sourceType}:${hit.sourceId}`) ?? []
    const details = { title: current.title, recalled, recallError: recall?.error ?? undefined }
    await recordAudit(tx, { actor, action: CHANTIER_CONFIRMED_ACTION, target: `work_chantier:${id}`, details })
    await tx.insert(workTransitions).values({ entity: 'chantier', entityId: id, kind: 'transition', fromStatus: 'draft', toStatus: 'planned', reason: 'confirmed from the message page', actor })
    if (current.sourceMessageId) await tx.insert(atlasAudit).values({ messageId: current.sourceMessageId, action: 'chantier_confirmed', actor, details: { chantierId: id, ...details } })
    return { ok: true as const, id, status: 'planned' as const, by: actor, recalled: recalled.length }
  })
}
