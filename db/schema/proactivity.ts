// Project proactivity (memory-and-learning §4.6): each night, one classification per project
// with active external contacts, of the reconstructed mail thread with its tenant. Idempotent
// per date: a second run the same night finds the row and classifies nothing again.
import { sql } from 'drizzle-orm'
import { bigint, check, index, pgTable, bigserial, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { clients } from './clients'
import { workProjects } from './worksites'

export const PROACTIVITY_VERDICTS = ['archive', 'action_required', 'awaiting_reply', 'nothing'] as const
export type ProactivityVerdict = typeof PROACTIVITY_VERDICTS[number]

export const learnProjectThreads = pgTable('learn_project_threads', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  projectId: uuid('project_id').notNull().references(() => workProjects.id, { onDelete: 'cascade' }),
  tenantId: uuid('tenant_id').notNull().references(() => clients.id),
  /** The night (UTC date, YYYY-MM-DD) the classification belongs to. */
  day: text('day').notNull(),
  verdict: text('verdict').$type<ProactivityVerdict>().notNull(),
  /** The model's one-sentence reason (shown to the team only). */
  reason: text('reason').notNull().default(''),
  /** The thread as linked: inbound atlas_messages ids, in time order. */
  messageIds: bigint('message_ids', { mode: 'number' }).array().notNull().default([]),
  /** The outbound side: atlas_reply_drafts ids marked sent, in time order. */
  replyIds: bigint('reply_ids', { mode: 'number' }).array().notNull().default([]),
  subject: text('subject').notNull().default(''),
  lastMessageAt: timestamp('last_message_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  uniqueIndex('learn_project_threads_day_key').on(table.projectId, table.day),
  index('learn_project_threads_day_idx').on(table.day, table.verdict),
  check('learn_project_threads_verdict_check', sql`${table.verdict} in ('archive', 'action_required', 'awaiting_reply', 'nothing')`),
])

export type LearnProjectThread = typeof learnProjectThreads.$inferSelect
