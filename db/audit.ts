// hub_audit: the append-only record of every human action in the hub.
import type { Db } from './client'
import { hubAudit } from './schema'

export interface AuditEntry {
  actor: string
  action: string
  target?: string
  details?: Record<string, unknown>
}

export async function recordAudit(db: Pick<Db, 'insert'>, entry: AuditEntry): Promise<void> {
  await db.insert(hubAudit).values({ ...entry, details: entry.details ?? {} })
}
