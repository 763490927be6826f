// Files in and out of the agents (issue 35, Deliver 3; seed agents-and-skills §15): one row per
// file a person gave an agent (direction `in`, scanned clean before anything read it) or an
// agent produced (`out`, the text the model wrote). The bytes live in the row (bytea): one
// backup, one transaction with the row that names them, and the run's deletion (ON DELETE
// CASCADE) removes them with nothing left on a disk; files are capped at a few megabytes
// (AGENT_FILE_MAX_BYTES). `text` is what was extracted at upload (PDF, DOCX, CSV, plain text);
// an image's OCR text is never stored, as for Atlas attachments: it is read again when asked.
import { sql } from 'drizzle-orm'
import { check, customType, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { agentRuns } from './agent-runs'

const bytea = customType<{ data: Buffer, driverData: Buffer }>({ dataType: () => 'bytea' })

export const agentFiles = pgTable('agent_files', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** The person who uploaded it, or whom the producing run acted for. */
  ownerEmail: text('owner_email').notNull(),
  /** Null while an upload waits for the chat turn or run it is given to. */
  runId: uuid('run_id').references(() => agentRuns.id, { onDelete: 'cascade' }),
  conversationId: uuid('conversation_id'),
  direction: text('direction').notNull(),
  name: text('name').notNull(),
  /** The type detected from the bytes (or the produced file's declared text type). */
  contentType: text('content_type').notNull(),
  size: integer('size').notNull(),
  sha256: text('sha256').notNull(),
  content: bytea('content').notNull(),
  /** Extracted text (null for images: their OCR text is never persisted). */
  text: text('text'),
  /** `clean` (an upload, with the scanner that said so) or `not_scanned` (text an agent produced). */
  scanVerdict: text('scan_verdict').notNull(),
  scanner: text('scanner'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  index('agent_files_run_idx').on(table.runId),
  index('agent_files_owner_idx').on(table.ownerEmail, table.createdAt),
  index('agent_files_conversation_idx').on(table.conversationId),
  check('agent_files_direction_check', sql`${table.direction} in ('in', 'out')`),
  check('agent_files_scan_check', sql`${table.scanVerdict} in ('clean', 'not_scanned')`),
  check('agent_files_size_check', sql`${table.size} >= 0`),
])
