// What the hub reads: the inbox list (filters, search, newest first), one message with its
// attachments, audit trail and materialised record, and a change marker for live refresh.
import { and, asc, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasAttachments, atlasAudit, atlasInbox, atlasMessages, type SenderAuth } from '#db/schema/atlas'
import { clients } from '#db/schema/clients'
import { getWorkRecord, isWorkKind, type WorkRecordView } from '#layers/worksites/core/registries'
import { recordRecall } from '#layers/worksites/core/pre-creation-recall'
import type { WorkRecall } from '#db/schema/work'
import { EMAIL_FRAME_CSP, sanitizeEmailHtml } from './sanitize'
import { RECLASSIFIABLE_STATUSES, type InboxStatus, type Intent } from '#layers/spawn/core/vocabulary'

export interface InboxFilters {
  status?: InboxStatus
  intent?: Intent
  /** Words searched in the subject, the sender and the body. */
  q?: string
  needsHuman?: boolean
  /** 1-based page of `pageSize` rows (at most 200), in `sort` order. */
  page?: number
  pageSize?: number
  sort?: InboxSort
  dir?: 'asc' | 'desc'
}

/** The columns the inbox list sorts by (newest first by default). */
export const INBOX_SORTS = ['receivedAt', 'from', 'subject', 'status', 'intent', 'attachments'] as const
export type InboxSort = typeof INBOX_SORTS[number]

export interface InboxListItem {
  messageId: number
  subject: string
  fromAddress: string | null
  fromName: string | null
  receivedAt: Date
  status: string
  statusReason: string | null
  needsHuman: boolean
  intent: string | null
  confidence: number | null
  tenant: string | null
  materialisedKind: string | null
  attachments: number
  updatedAt: Date
  /** The sender authentication verdict (null: never checked) and its flags, for the inbox badge. */
  senderAuth: { verdict: SenderAuth['verdict'], flags: string[] } | null
}

export interface InboxList {
  items: InboxListItem[]
  counts: Record<string, number>
  /** Messages matching the filters, over all pages. */
  total: number
  page: number
  pageSize: number
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, match => `\\${match}`)
}

const attachmentCount = sql<number>`(select count(*)::int from atlas_attachments a where a.message_id = ${atlasMessages.id})`

const SORT_COLUMN: Record<InboxSort, SQL> = {
  receivedAt: sql`${atlasMessages.receivedAt}`,
  from: sql`lower(coalesce(nullif(${atlasMessages.fromName}, ''), ${atlasMessages.fromAddress}, ''))`,
  subject: sql`lower(${atlasMessages.subject})`,
  status: sql`${atlasInbox.status}`,
  intent: sql`coalesce(${atlasInbox.intent}, '')`,
  attachments: attachmentCount,
}

export async function listInbox(db: Db, filters: InboxFilters = {}): Promise<InboxList> {
  const pageSize = Math.min(Math.max(filters.pageSize ?? 25, 1), 200)
  const page = Math.max(filters.page ?? 1, 1)
  const conditions: SQL[] = []
  if (filters.status) conditions.push(eq(atlasInbox.status, filters.status))
  if (filters.intent) conditions.push(eq(atlasInbox.intent, filters.intent))
  if (filters.needsHuman !== undefined) conditions.push(eq(atlasInbox.needsHuman, filters.needsHuman))
  for (const word of (filters.q ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 8)) {
    const pattern = `%${escapeLike(word)}%`
    conditions.push(
      or(
        ilike(atlasMessages.subject, pattern),
        ilike(atlasMessages.fromAddress, pattern),
        ilike(atlasMessages.fromName, pattern),
        ilike(atlasMessages.textBody, pattern),
      )!,
    )
  }
  const where = conditions.length > 0 ? and(...conditions) : undefined
  const order = filters.dir === 'asc' ? asc : desc
  // One statement for a page and its counts (each statement costs as much again on the
  // embedded database): the filtered total and the counts by status as uncorrelated
  // subqueries, run once per statement (the filter's qualified columns name the subquery's
  // own tables, the innermost scope). A page with no row carries neither, so only then are
  // they counted on their own.
  // The message id breaks ties, so a page boundary never shows a row twice or skips one.
  const pageRows = await db.select({
    messageId: atlasMessages.id,
    subject: atlasMessages.subject,
    fromAddress: atlasMessages.fromAddress,
    fromName: atlasMessages.fromName,
    receivedAt: atlasMessages.receivedAt,
    status: atlasInbox.status,
    statusReason: atlasInbox.statusReason,
    needsHuman: atlasInbox.needsHuman,
    intent: atlasInbox.intent,
    confidence: atlasInbox.confidence,
    tenant: clients.name,
    materialisedKind: atlasInbox.materialisedKind,
    attachments: attachmentCount,
    updatedAt: atlasInbox.updatedAt,
    senderAuth: sql<InboxListItem['senderAuth']>`case when ${atlasMessages.senderAuth} is null then null else jsonb_build_object('verdict', ${atlasMessages.senderAuth}->'verdict', 'flags', coalesce(${atlasMessages.senderAuth}->'flags', '[]'::jsonb)) end`,
    total: where
      ? sql<number>`(select count(*)::int from atlas_inbox inner join atlas_messages on atlas_messages.id = atlas_inbox.message_id where ${where})`
      : sql<number>`(select count(*)::int from atlas_inbox)`,
    counts: sql<Record<string, number>>`(select coalesce(jsonb_object_agg(s.status, s.n), '{}'::jsonb) from (select status, count(*)::int as n from atlas_inbox group by status) s)`,
  }).from(atlasInbox)
    .innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId))
    .leftJoin(clients, eq(clients.id, atlasInbox.tenantId))
    .where(where)
    .orderBy(order(SORT_COLUMN[filters.sort ?? 'receivedAt']), order(atlasMessages.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize)
  if (pageRows.length > 0) {
    const { total, counts } = pageRows[0]!
    return { items: pageRows.map(({ total: _total, counts: _counts, ...item }) => item), counts, total, page, pageSize }
  }
  // Every inbox row has its message (a non-null foreign key), so an unfiltered first page
  // with no row means an empty inbox: nothing left to count (a fresh installation's case).
  if (!where && page === 1) return { items: [], counts: {}, total: 0, page, pageSize }
  const countRows = await db.select({
    status: atlasInbox.status,
    n: sql<number>`count(*)::int`,
    matching: where ? sql<number>`(count(*) filter (where ${where}))::int` : sql<number>`count(*)::int`,
  }).from(atlasInbox).innerJoin(atlasMessages, eq(atlasMessages.id, atlasInbox.messageId)).groupBy(atlasInbox.status)
  return {
    items: [],
    counts: Object.fromEntries(countRows.map(row => [row.status, row.n])),
    total: countRows.reduce((sum, row) => sum + row.matching, 0),
    page,
    pageSize,
  }
}

export interface MessageDetail {
  message: {
    id: number
    messageId: string | null
    subject: string
    fromAddress: string | null
    fromName: string | null
    toAddresses: string[]
    ccAddresses: string[]
    replyTo: string | null
    sentAt: Date | null
    receivedAt: Date
    inReplyTo: string | null
    headers: Array<{ key: string, value: string }>
    textBody: string
    /** Sanitised, remote content removed; show it in a sandboxed frame with `frameCsp`. */
    safeHtml: string | null
    blockedRemote: number
    frameCsp: string
    parseWarnings: string[]
    rawSize: number
    rawSha256: string
    senderAuth: SenderAuth | null
  }
  inbox: {
    status: string
    statusReason: string | null
    needsHuman: boolean
    intent: string | null
    confidence: number | null
    provider: string | null
    model: string | null
    reasoning: string | null
    classifyAttempts: number
    classifiedAt: Date | null
    updatedAt: Date
    reclassifiable: boolean
    reclassifyRequestedBy: string | null
    admission: string | null
    admissionReason: string | null
    admissionBy: string | null
    admissionAt: Date | null
  }
  tenant: { id: string, slug: string, name: string } | null
  attachments: Array<{
    position: number
    filename: string | null
    contentType: string
    sizeBytes: number
    sha256: string
    inline: boolean
    verdict: string
    signature: string | null
    verdictReason: string | null
    scanner: string | null
    scannedAt: Date | null
  }>
  audit: Array<{ id: number, at: Date, action: string, actor: string, details: Record<string, unknown> }>
  materialised: WorkRecordView | null
  /** What the memory recalled when the record was created (null: no recall ran). */
  recall: WorkRecall | null
}

export async function getMessageDetail(db: Db, messageId: number): Promise<MessageDetail | null> {
  const [row] = await db.select().from(atlasMessages)
    .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .leftJoin(clients, eq(clients.id, atlasInbox.tenantId))
    .where(eq(atlasMessages.id, messageId))
  if (!row) return null
  const message = row.atlas_messages
  const inbox = row.atlas_inbox
  const attachments = await db
    .select()
    .from(atlasAttachments)
    .where(eq(atlasAttachments.messageId, messageId))
    .orderBy(asc(atlasAttachments.position))
  const audit = await db.select().from(atlasAudit).where(eq(atlasAudit.messageId, messageId)).orderBy(asc(atlasAudit.id))
  const sanitised = message.htmlBody ? sanitizeEmailHtml(message.htmlBody) : null
  const materialised = inbox.materialisedKind && inbox.materialisedId && isWorkKind(inbox.materialisedKind)
    ? await getWorkRecord(db, inbox.materialisedKind, inbox.materialisedId)
    : null
  const recall = materialised ? await recordRecall(db, materialised.kind, materialised.id) : null
  return {
    message: {
      id: message.id,
      messageId: message.messageId,
      subject: message.subject,
      fromAddress: message.fromAddress,
      fromName: message.fromName,
      toAddresses: message.toAddresses,
      ccAddresses: message.ccAddresses,
      replyTo: message.replyTo,
      sentAt: message.sentAt,
      receivedAt: message.receivedAt,
      inReplyTo: message.inReplyTo,
      headers: message.headers,
      textBody: message.textBody,
      safeHtml: sanitised?.html ?? null,
      blockedRemote: sanitised?.blockedRemote ?? 0,
      frameCsp: EMAIL_FRAME_CSP,
      parseWarnings: message.parseWarnings,
      rawSize: message.rawSize,
      rawSha256: message.rawSha256,
      senderAuth: message.senderAuth,
    },
    inbox: {
      status: inbox.status,
      statusReason: inbox.statusReason,
      needsHuman: inbox.needsHuman,
      intent: inbox.intent,
      confidence: inbox.confidence,
      provider: inbox.provider,
      model: inbox.model,
      reasoning: inbox.reasoning,
      classifyAttempts: inbox.classifyAttempts,
      classifiedAt: inbox.classifiedAt,
      updatedAt: inbox.updatedAt,
      reclassifiable: RECLASSIFIABLE_STATUSES.includes(inbox.status as InboxStatus),
      reclassifyRequestedBy: inbox.reclassifyRequestedBy,
      admission: inbox.admission,
      admissionReason: inbox.admissionReason,
      admissionBy: inbox.admissionBy,
      admissionAt: inbox.admissionAt,
    },
    tenant: row.clients ? { id: row.clients.id, slug: row.clients.slug, name: row.clients.name } : null,
    attachments: attachments.map(a => ({
      position: a.position, filename: a.filename, contentType: a.contentType, sizeBytes: a.sizeBytes, sha256: a.sha256, inline: a.inline,
      verdict: a.verdict, signature: a.signature, verdictReason: a.verdictReason, scanner: a.scanner, scannedAt: a.scannedAt,
    })),
    audit: audit.map(entry => ({ id: entry.id, at: entry.at, action: entry.action, actor: entry.actor, details: entry.details })),
    materialised,
    recall,
  }
}

/**
 * Changes whenever anything the inbox or a message page shows changes (reply drafts too, and
 * the lesson a spawn's outcome records just after its audit entry, for the message's timeline):
 * the live views poll it cheaply.
 */
export async function inboxVersion(db: Db): Promise<string> {
  const rows = await db.execute<{ audit: string | null, updated: string | null, n: number, drafts: string | null, lessons: string | null }>(sql`
    select (select max(id)::text from atlas_audit) as audit,
           (select max(updated_at)::text from atlas_inbox) as updated,
           (select count(*)::int from atlas_inbox) as n,
           (select max(updated_at)::text from atlas_reply_drafts) as drafts,
           (select max(id)::text from learn_lessons where source_spawn_id is not null) as lessons`)
  const row = rows[0]
  return `${row?.audit ?? 0}:${row?.updated ?? ''}:${row?.n ?? 0}:${row?.drafts ?? ''}:${row?.lessons ?? 0}`
}
