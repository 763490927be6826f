// The pipeline's audit trail (atlas_audit, append-only): one row per pipeline action.
import type { Db } from '#db/client'
import { atlasAudit } from '#db/schema/atlas'
import { cleanDetails } from '#layers/spawn/core/text'
import type { AuditAction } from '#layers/spawn/core/vocabulary'

export interface AtlasAuditInput {
  messageId?: number | null
  action: AuditAction
  actor: string
  details?: Record<string, unknown>
}

export async function recordAtlasAudit(db: Pick<Db, 'insert'>, entry: AtlasAuditInput): Promise<void> {
  await db.insert(atlasAudit).values({
    messageId: entry.messageId ?? null,
    action: entry.action,
    actor: entry.actor,
    details: cleanDetails(entry.details ?? {}) as Record<string, unknown>,
  })
}
