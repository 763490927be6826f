// Stores one incoming message, idempotently, in one transaction: the message (unique on its
// Message-ID, or on the SHA-256 of its raw source when it has none), its attachments'
// metadata (verdict pending), its tracking row (received, or quarantined with the reason)
// and the audit record. The same message stored twice is recognised and left alone; a
// different message re-using a Message-ID is kept too, quarantined for a person.
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAttachments, atlasInbox, atlasMessages, type SenderAuth } from '#db/schema/atlas'
import { recordAtlasAudit } from '../audit'
import { clip } from '#layers/spawn/core/text'
import type { InboxStatus } from '#layers/spawn/core/vocabulary'
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

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/** The message row as parsed, its sender authentication included. */
function messageValues(incoming: IncomingMessage) {
  const parsed = incoming.parsed
  return {
    messageId: parsed.messageId ?? null,
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
}

type Inserted = { kind: 'new', id: number, quarantine: string | undefined } | { kind: 'duplicate', stored: StoredMessage }

/**
 * Inserts the message under its key (its Message-ID, else the SHA-256 of its source). The same
 * mail seen again is a duplicate; another mail reusing a seen Message-ID is kept under its own
 * key and quarantined for a person to judge.
 */
async function insertMessage(tx: Tx, incoming: IncomingMessage, primaryKey: string): Promise<Inserted> {
  const values = messageValues(incoming)
  let quarantine = incoming.quarantine
  let [row] = await tx
    .insert(atlasMessages)
    .values({ ...values, dedupeKey: primaryKey })
    .onConflictDoNothing({ target: atlasMessages.dedupeKey })
    .returning({ id: atlasMessages.id })
  if (row) return { kind: 'new', id: row.id, quarantine }
  const [existing] = await tx
    .select({ id: atlasMessages.id, rawSha256: atlasMessages.rawSha256 })
    .from(atlasMessages)
    .where(eq(atlasMessages.dedupeKey, primaryKey))
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
  if (row) return { kind: 'new', id: row.id, quarantine }
  const key = sameContent ? primaryKey : `${primaryKey}#sha256:${incoming.rawSha256}`
  const [known] = await tx.select({ messageRowId: atlasMessages.id, inboxId: atlasInbox.id, status: atlasInbox.status })
    .from(atlasMessages).innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .where(eq(atlasMessages.dedupeKey, key))
  return { kind: 'duplicate', stored: { messageRowId: known!.messageRowId, inboxId: known!.inboxId, status: known!.status as InboxStatus, outcome: 'duplicate' as const } }
}

async function insertAttachments(tx: Tx, messageRowId: number, attachments: ParsedMessage['attachments']): Promise<void> {
  if (attachments.length === 0) return
  await tx.insert(atlasAttachments).values(attachments.map(attachment => ({
    messageId: messageRowId,
    position: attachment.position,
    filename: attachment.filename,
    contentType: attachment.contentType,
    contentId: attachment.contentId,
    inline: attachment.inline,
    sizeBytes: attachment.sizeBytes,
    sha256: attachment.sha256,
  }))).onConflictDoNothing()
}

export async function storeIncoming(db: Db, incoming: IncomingMessage, actor: string): Promise<StoredMessage> {
  const parsed = incoming.parsed
  const messageId = parsed.messageId ?? null
  const primaryKey = messageId ?? `sha256:${incoming.rawSha256}`
  return await db.transaction(async (tx) => {
    const inserted = await insertMessage(tx, incoming, primaryKey)
    if (inserted.kind === 'duplicate') return inserted.stored
    const { id, quarantine } = inserted
    const attachments = parsed.attachments ?? []
    await insertAttachments(tx, id, attachments)
    const status: InboxStatus = quarantine ? 'quarantined' : 'received'
    const [inbox] = await tx.insert(atlasInbox).values({
      messageId: id,
      status,
      statusReason: quarantine ?? null,
      needsHuman: Boolean(quarantine),
    }).returning({ id: atlasInbox.id })
    await recordAtlasAudit(tx, {
      messageId: id,
      action: quarantine ? 'quarantined' : 'received',
      actor,
      details: {
        mailbox: incoming.mailbox, uid: incoming.uid, uidValidity: incoming.uidValidity, size: incoming.rawSize,
        messageId, attachments: attachments.length, reason: quarantine, warnings: parsed.warnings?.length ? parsed.warnings : undefined,
        senderAuth: incoming.senderAuth ? { verdict: incoming.senderAuth.verdict, flags: incoming.senderAuth.flags } : undefined,
      },
    })
    return { messageRowId: id, inboxId: inbox!.id, status, outcome: quarantine ? 'quarantined' as const : 'ingested' as const }
  })
}
