// What the notifications slideover lists: the open alerts (the lock guardian's and the
// other guardians'), and the Atlas messages waiting for a person (flagged for a human, or
// whose spawn escalated or failed). Newest first; nothing here is invented.
import { desc, eq, inArray, isNull, or } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { atlasInbox, atlasMessages, opsAlerts } from '#db/schema/index'
import { BUDGET_ALERT_KIND } from '#layers/ai/core/budgets'

export interface HubNotification {
  id: string
  kind: 'alert' | 'message'
  title: string
  body: string
  at: string
  to: string
}

const WAITING_STATUSES = ['escalated', 'spawn_failed'] as const

export async function listNotifications(db: Db, limit = 50): Promise<HubNotification[]> {
  const [alerts, waiting] = await Promise.all([
    db.select().from(opsAlerts).where(isNull(opsAlerts.resolvedAt)).orderBy(desc(opsAlerts.raisedAt)).limit(limit),
    db
      .select({
        id: atlasMessages.id,
        subject: atlasMessages.subject,
        from: atlasMessages.fromAddress,
        status: atlasInbox.status,
        reason: atlasInbox.statusReason,
        needsHuman: atlasInbox.needsHuman,
        at: atlasInbox.updatedAt,
      })
      .from(atlasInbox)
      .innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId))
      .where(or(eq(atlasInbox.needsHuman, true), inArray(atlasInbox.status, [...WAITING_STATUSES])))
      .orderBy(desc(atlasInbox.updatedAt))
      .limit(limit),
  ])
  const list: HubNotification[] = [
    ...alerts.map(alert => ({
      id: `alert-${alert.id}`,
      kind: 'alert' as const,
      title: `${alert.kind.replace(/_/g, ' ')}: ${alert.subject}`,
      body: alert.message,
      at: alert.raisedAt.toISOString(),
      // A budget's threshold is raised (or read) on the usage page.
      to: alert.kind === BUDGET_ALERT_KIND ? '/hub/usage' : '/hub/health',
    })),
    ...waiting.map(message => ({
      id: `message-${message.id}`,
      kind: 'message' as const,
      title: message.subject || '(no subject)',
      body: message.status === 'escalated' || message.status === 'spawn_failed'
        ? `${message.status.replace(/_/g, ' ')}${message.reason ? `: ${message.reason}` : ''} — a person decides what next.`
        : `Needs a person${message.reason ? `: ${message.reason}` : ''} (from ${message.from ?? 'an unknown sender'}).`,
      at: message.at.toISOString(),
      to: `/hub/atlas/${message.id}`,
    })),
  ]
  return list.sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit)
}
