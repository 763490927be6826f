// The Atlas inbox family: raw ingested mail, its attachments' verdicts, one tracking row
// per message, the append-only audit trail, the mailbox state (UIDVALIDITY), the reply
// drafts read when a question materialises, and the monthly calibration reports.
// Attachment bytes and OCR text are never stored here.
import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, check, index, integer, jsonb, pgTable, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { clients } from './clients'

export interface AtlasHeaderLine { key: string, value: string }

/**
 * Who sent a message, as verified at ingestion (layers/atlas/core/auth): DKIM, SPF, DMARC and
 * ARC with mailauth, plus the Authentication-Results the trusted receiving server added on top.
 * `pass` means the From address is authenticated; `fail` that something says it is forged;
 * `none` that nothing could tell. `flags` are the warnings shown in the hub.
 */
export interface SenderAuth {
  verdict: 'pass' | 'fail' | 'none'
  /** The authenticated From domain (pass only). */
  domain: string | null
  reasons: string[]
  flags: string[]
  results: { dkim: string, spf: string, dmarc: string, arc: string, trusted: string[] }
  checkedAt: string
}

/** Raw ingested messages: what the mail said, never its attachment bytes. */
export const atlasMessages = pgTable('atlas_messages', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** Idempotency key: the Message-ID, or `sha256:<hex>` of the raw source when there is none. */
  dedupeKey: text('dedupe_key').notNull(),
  /** The Message-ID header as received (null when missing). */
  messageId: text('message_id'),
  rawSha256: text('raw_sha256').notNull(),
  rawSize: integer('raw_size').notNull(),
  mailbox: text('mailbox').notNull(),
  uidValidity: bigint('uid_validity', { mode: 'number' }),
  uid: bigint('uid', { mode: 'number' }),
  fromAddress: text('from_address'),
  fromName: text('from_name'),
  toAddresses: text('to_addresses').array().notNull().default([]),
  ccAddresses: text('cc_addresses').array().notNull().default([]),
  replyTo: text('reply_to'),
  subject: text('subject').notNull().default(''),
  sentAt: timestamp('sent_at', { withTimezone: true }),
  inReplyTo: text('in_reply_to'),
  threadReferences: text('thread_references').array().notNull().default([]),
  headers: jsonb('headers').$type<AtlasHeaderLine[]>().notNull().default([]),
  textBody: text('text_body').notNull().default(''),
  htmlBody: text('html_body'),
  /** Problems met while parsing (unknown charset, truncated HTML…), for the hub. */
  parseWarnings: text('parse_warnings').array().notNull().default([]),
  /** The sender authentication verdict (null: stored before it existed, or a quarantined header-only message). */
  senderAuth: jsonb('sender_auth').$type<SenderAuth>(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('atlas_messages_dedupe_key_key').on(table.dedupeKey),
  index('atlas_messages_message_id_idx').on(table.messageId),
  index('atlas_messages_received_at_idx').on(table.receivedAt),
])

/** One row per attachment: name, size, hash and the antivirus verdict. */
export const atlasAttachments = pgTable('atlas_attachments', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  messageId: bigint('message_id', { mode: 'number' }).notNull().references(() => atlasMessages.id),
  position: integer('position').notNull(),
  filename: text('filename'),
  contentType: text('content_type').notNull(),
  contentId: text('content_id'),
  inline: boolean('inline').notNull().default(false),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  sha256: text('sha256').notNull(),
  verdict: text('verdict').$type<'pending' | 'clean' | 'infected' | 'error'>().notNull().default('pending'),
  /** The signature name when infected. */
  signature: text('signature'),
  /** Why the scan failed when the verdict is error. */
  verdictReason: text('verdict_reason'),
  scanner: text('scanner'),
  scannedAt: timestamp('scanned_at', { withTimezone: true }),
}, table => [
  uniqueIndex('atlas_attachments_message_position_key').on(table.messageId, table.position),
  check('atlas_attachments_verdict_check', sql`${table.verdict} in ('pending', 'clean', 'infected', 'error')`),
])

/** The tracking row: one per message, its whole lifecycle. */
export const atlasInbox = pgTable('atlas_inbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  messageId: bigint('message_id', { mode: 'number' }).notNull().references(() => atlasMessages.id),
  status: text('status').notNull().default('received'),
  /** Why the message is in its status (quarantine reason, scan outcome, model error…). */
  statusReason: text('status_reason'),
  /** Set when a person has to look at the message (quarantine, unsafe, repeated failures). */
  needsHuman: boolean('needs_human').notNull().default(false),
  intent: text('intent'),
  /** The model's confidence, as answered (also when a guardrail changed the intent). */
  confidence: real('confidence'),
  provider: text('provider'),
  model: text('model'),
  reasoning: text('reasoning'),
  tenantId: uuid('tenant_id').references(() => clients.id),
  materialisedKind: text('materialised_kind'),
  materialisedId: uuid('materialised_id'),
  classifyAttempts: integer('classify_attempts').notNull().default(0),
  /** Optimistic concurrency: every state change increments it and checks the value it read. */
  revision: integer('revision').notNull().default(0),
  reclassifyRequestedBy: text('reclassify_requested_by'),
  /**
   * Spawn admission (core/admission.ts): `auto` (authenticated team member or tenant contact),
   * `awaiting` (status awaiting_approval), `approved` / `rejected` by a person in the hub.
   * Only `auto` and `approved` messages are ever queued for a spawn.
   */
  admission: text('admission').$type<'auto' | 'awaiting' | 'approved' | 'rejected'>(),
  admissionReason: text('admission_reason'),
  admissionBy: text('admission_by'),
  admissionAt: timestamp('admission_at', { withTimezone: true }),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  classifiedAt: timestamp('classified_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('atlas_inbox_message_id_key').on(table.messageId),
  index('atlas_inbox_status_idx').on(table.status, table.updatedAt),
  index('atlas_inbox_updated_at_idx').on(table.updatedAt),
  check('atlas_inbox_status_check', sql`${table.status} in ('received', 'blocked_unsafe', 'quarantined', 'classification_failed', 'classified', 'awaiting_approval', 'rejected', 'spawn_queued', 'spawning', 'deploying', 'qa', 'actioned', 'escalated', 'spawn_failed')`),
  check('atlas_inbox_intent_check', sql`${table.intent} is null or ${table.intent} in ('run', 'chantier', 'question', 'noise', 'negociation', 'conseil')`),
  check('atlas_inbox_admission_check', sql`${table.admission} is null or ${table.admission} in ('auto', 'awaiting', 'approved', 'rejected')`),
  check('atlas_inbox_confidence_check', sql`${table.confidence} is null or (${table.confidence} >= 0 and ${table.confidence} <= 1)`),
  check('atlas_inbox_materialised_check', sql`(${table.materialisedKind} is null) = (${table.materialisedId} is null)`),
])

/** The pipeline's append-only trail (a trigger refuses UPDATE and DELETE). */
export const atlasAudit = pgTable('atlas_audit', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  /** The message concerned (null for mailbox-level and outbound-mail events). */
  messageId: bigint('message_id', { mode: 'number' }).references(() => atlasMessages.id),
  action: text('action').notNull(),
  /** Who acted: an automate name, a hub user's email, or the mail facade. */
  actor: text('actor').notNull(),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
}, table => [
  index('atlas_audit_message_idx').on(table.messageId, table.id),
  index('atlas_audit_action_at_idx').on(table.action, table.at),
])

/** The collector's view of each mailbox: UIDVALIDITY and the highest UID ingested. */
export const atlasMailboxState = pgTable('atlas_mailbox_state', {
  mailbox: text('mailbox').primaryKey(),
  uidValidity: bigint('uid_validity', { mode: 'number' }).notNull(),
  lastUid: bigint('last_uid', { mode: 'number' }).notNull().default(0),
  lastPolledAt: timestamp('last_polled_at', { withTimezone: true }).notNull().defaultNow(),
})

/** Prepared reply bodies for a message (written by the reply-draft feature, read when a question materialises). */
export const atlasReplyDrafts = pgTable('atlas_reply_drafts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  messageId: bigint('message_id', { mode: 'number' }).notNull().references(() => atlasMessages.id),
  body: text('body').notNull(),
  status: text('status').notNull().default('draft'),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  sentBy: text('sent_by'),
  sentAt: timestamp('sent_at', { withTimezone: true }),
}, table => [
  index('atlas_reply_drafts_message_idx').on(table.messageId, table.createdAt),
  // One draft per message at a time: a new one discards the one before (saveReplyDraft).
  uniqueIndex('atlas_reply_drafts_one_draft_idx').on(table.messageId).where(sql`${table.status} = 'draft'`),
  check('atlas_reply_drafts_status_check', sql`${table.status} in ('draft', 'sent', 'discarded')`),
])

/** The monthly classifier calibration report, one row per month (YYYY-MM). */
export const atlasCalibrationReports = pgTable('atlas_calibration_reports', {
  month: text('month').primaryKey(),
  generatedAt: timestamp('generated_at', { withTimezone: true }).notNull().defaultNow(),
  report: jsonb('report').$type<Record<string, unknown>>().notNull(),
}, table => [
  check('atlas_calibration_reports_month_check', sql`${table.month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`),
])

export type AtlasMessage = typeof atlasMessages.$inferSelect
export type AtlasAttachment = typeof atlasAttachments.$inferSelect
export type AtlasInboxRow = typeof atlasInbox.$inferSelect
export type AtlasAuditEntry = typeof atlasAudit.$inferSelect
export type AtlasReplyDraft = typeof atlasReplyDrafts.$inferSelect
