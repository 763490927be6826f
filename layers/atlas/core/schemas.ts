// The Atlas routes' inputs (the inbox, a message and what a person does with it), shared by the
// routes that validate them and the API document (GET /api/openapi.json). Framework-free.
import { z } from 'zod'
import type { ApiSchemaMap } from '#layers/base/core/api-schema-map'
import { LESSON_KINDS } from '#layers/memory/core/lessons-manual'
import { pagingQuery } from '#shared/paging'
import { INBOX_SORTS } from './queries'
import { MessageTimeline } from './timeline-schema'
import { INBOX_STATUSES, INTENTS } from '#layers/spawn/core/vocabulary'

const MAX_EML_CHARS = 10 * 1024 * 1024

export const InboxQuery = z.object({
  status: z.enum(INBOX_STATUSES).optional(),
  intent: z.enum(INTENTS).optional(),
  q: z.string().max(200).optional(),
  needsHuman: z.enum(['true', 'false']).transform(value => value === 'true').optional(),
  ...pagingQuery(INBOX_SORTS),
})

export const MessageParams = z.object({ id: z.coerce.number().int().positive() })

/** A test message: a pasted .eml, or a small form (from, subject, text). */
export const MessageSubmitBody = z.union([
  z.object({
    eml: z.string().min(1).max(MAX_EML_CHARS, 'eml: over 10 MB; a larger message needs a mailbox')
      .refine(text => /^[\x21-\x39\x3B-\x7E]+:/.test(text.replace(/^\uFEFF/, '')), 'eml: an .eml starts with its headers (From:, Subject:, …)'),
  }).strict(),
  z.object({
    /** `camille@client.example` or `Camille <camille@client.example>`. */
    from: z.string().trim().max(320).refine(from => z.email().safeParse(from.replace(/^[^<]*<([^>]+)>$/, '$1').trim()).success, 'from: not an e-mail address'),
    subject: z.string().trim().min(1, 'subject: required').max(500),
    text: z.string().trim().min(1, 'text: required').max(100_000),
  }).strict(),
])

/** Approving or rejecting a message: an optional note. */
export const ApprovalBody = z.object({ note: z.string().trim().max(500, 'note: at most 500 characters').optional() }).optional()

/** A win (victory) or a scar a person records from a message. */
export const MessageLessonBody = z.object({
  kind: z.enum(LESSON_KINDS),
  title: z.string().trim().min(3, 'title: at least 3 characters').max(200),
  description: z.string().trim().min(10, 'description: say what happened, at least 10 characters').max(4000),
  checkAdded: z.string().trim().max(2000).optional(),
  tags: z.array(z.string().trim().regex(/^[\p{L}\p{N}][\p{L}\p{N}_:-]{0,39}$/u, 'tags: letters, digits, - _ : (at most 40 characters)')).max(10).optional(),
  agent: z.string().trim().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'agent: a codename (kebab-case)').max(64).optional().or(z.literal('')),
  spawnId: z.uuid().optional(),
}).strict()

export const apiSchemas: ApiSchemaMap = {
  'GET /api/atlas/inbox': { summary: 'The Atlas inbox, one page at a time', query: InboxQuery },
  'POST /api/atlas/messages': { summary: 'Hand in a test message (.eml or form)', body: MessageSubmitBody, status: 201 },
  'GET /api/atlas/messages/{id}': { summary: 'One message with its classification and trail', params: MessageParams },
  'POST /api/atlas/messages/{id}/approve': { params: MessageParams, body: ApprovalBody },
  'POST /api/atlas/messages/{id}/reject': { params: MessageParams, body: ApprovalBody },
  'POST /api/atlas/messages/{id}/reclassify': { params: MessageParams, status: 202 },
  'POST /api/atlas/messages/{id}/lessons': { params: MessageParams, body: MessageLessonBody, status: 201 },
  'GET /api/atlas/messages/{id}/timeline': { summary: 'One message\'s story in order, each step with its actor and links', params: MessageParams, response: MessageTimeline },
}
