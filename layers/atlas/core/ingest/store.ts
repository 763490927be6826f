// Stores one incoming message, idempotently, in one transaction: the message (unique on its
// Message-ID, or on the SHA-256 of its raw source when it has none), its attachments'
// metadata (verdict pending), its tracking row (received, or quarantined with the reason)
// and the audit record. The same message stored twice is recognised and left alone; a
// different message re-using a Message-ID is kept too, quarantined for a person.
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAttachments, atlasInbox, atlasMessages, type SenderAuth } from '#db/schema/atlas'
import { recordAtlasAudit } from '../audit'
import { clip } from '../text'
import type { InboxStatus } from '../vocabulary'
import type { ParsedMessage } from './parse'

export interface IncomingMessage {
  rawSha256: string
  rawSize: number
  mailbox: string
  uidValidity: number | null
  uid: number | null
  /** What was parsed (complete, or partial for a quarantined message). */
  parsed: Partial<ParsedMessage>
  /** Set when the message cannot go through the pipeline. */
  quarantine?: string
  /** The sender authentication verdict (null when it could not be checked). */
  senderAuth?: SenderAuth | null
}

export interface StoredMessage {
  messageRowId: number
  inboxId: number
  status: InboxStatus
  outcome: 'ingested' | 'quarantined' | 'duplicate'
}

export async function storeIncoming(db: Db, incoming: IncomingMessage, actor: string): Promise<StoredMessage> {
  const parsed = incoming.parsed
  const messageId = parsed.messageId ?? null
  const primaryKey = messageId ?? `sha256:${incoming.rawSha256}`
  return await db.transaction(async (tx) => {
    const values = {
      messageId,
      rawSha256: incoming.rawSha256,
      rawSize: incoming.rawSize,
      mailbox: incoming.mailbox,
      uidValidity: incoming.uidValidity,
      uid: incoming.uid,
      fromAddress: parsed.fromAddress ?? null,
      fromName: parsed.fromName ?? null,
      toAddresses: parsed.toAddresses ?? [],
      ccAddresses: parsed.ccAddresses ?? [],
      replyTo: parsed.replyTo ?? null,
      subject: parsed.subject ?? '',
      sentAt: parsed.sentAt ?? null,
      inReplyTo: parsed.inReplyTo ?? null,
      threadReferences: parsed.threadReferences ?? [],
      headers: parsed.headers ?? [],
      textBody: parsed.textBody ?? '',
      htmlBody: parsed.htmlBody ?? null,
      parseWarnings: parsed.warnings ?? [],
      senderAuth: incoming.senderAuth ?? null,
    }
    let quarantine = incoming.quarantine
    let [row] = await tx.insert(atlasMessages).values({ ...values, dedupeKey: primaryKey }).onConflictDoNothing({ target: atlasMessages.dedupeKey }).returning({ id: atlasMessages.id })
    if (!row) {
      const [existing] = await tx.select({ id: atlasMessages.id, rawSha256: atlasMessages.rawSha256 }).from(atlasMessages).where(eq(atlasMessages.dedupeKey, primaryKey))
      const sameContent = !existing || existing.rawSha256 === incoming.rawSha256
      if (!sameContent) {
        // Another message carrying an already-seen Message-ID: kept under its own key, for a person to judge.
        const [again] = await tx.insert(atlasMessages)
          .values({ ...values, dedupeKey: `${primaryKey}#sha256:${incoming.rawSha256}` })
          .onConflictDoNothing({ target: atlasMessages.dedupeKey })
          .returning({ id: atlasMessages.id })
        if (again) {
          row = again
          quarantine = `duplicate Message-ID ${clip(primaryKey, 200)} with different content (the first one is message #${existing!.id}); kept for a person to review${quarantine ? `; ${quarantine}` : ''}`
        }
      }
      if (!row) {
        const key = sameContent ? primaryKey : `${primaryKey}#sha256:${incoming.rawSha256}`
        const [known] = await tx.select({ messageRowId: atlasMessages.id, inboxId: atlasInbox.id, status: atlasInbox.status })
          .from(atlasMessages).innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
          .where(eq(atlasMessages.dedupeKey, key))
        return { messageRowId: known!.messageRowId, inboxId: known!.inboxId, status: known!.status as InboxStatus, outcome: 'duplicate' as const }
      }
    }
    const attachments = parsed.attachments ?? []
    if (attachments.length > 0) {
      await tx.insert(atlasAttachments).values(attachments.map(attachment => ({
        messageId: row!.id,
        position: attachment.position,
        filename: attachment.filename,
        contentType: attachment.contentType,
        contentId: attachment.contentId,
        inline: attachment.inline,
        sizeBytes: attachment.sizeBytes,
        sha256: attachment.sha256,
      }))).onConflictDoNothing()
    }
    const status: InboxStatus = quarantine ? 'quarantined' : 'received'
    const [inbox] = await tx.insert(atlasInbox).values({
      messageId: row.id,
      status,
      statusReason: quarantine ?? null,
      needsHuman: Boolean(quarantine),
    }).returning({ id: atlasInbox.id })
    await recordAtlasAudit(tx, {
      messageId: row.id,
      action: quarantine ? 'quarantined' : 'received',
      actor,
      details: {
        mailbox: incoming.mailbox, uid: incoming.uid, uidValidity: incoming.uidValidity, size: incoming.rawSize,
        messageId, attachments: attachments.length, reason: quarantine, warnings: parsed.warnings?.length ? parsed.warnings : undefined,
        senderAuth: incoming.senderAuth ? { verdict: incoming.senderAuth.verdict, flags: incoming.senderAuth.flags } : undefined,
      },
    })
    return { messageRowId: row.id, inboxId: inbox!.id, status, outcome: quarantine ? 'quarantined' as const : 'ingested' as const }
  })
}
