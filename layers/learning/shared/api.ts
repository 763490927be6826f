// The learning routes' input shapes (zod), shared by the routes and the page's forms.
import { z } from 'zod'
import { LEARN_DESTINATIONS, LEARN_SUGGESTION_STATUSES } from '#db/schema/learn'

const TAG = /^[\p{L}\p{N}][\p{L}\p{N}_.:/-]{0,47}$/u
const CODENAME = /^[a-z0-9]+(-[a-z0-9]+)*$/

/**
 * Tags as a real array. A string is accepted in the two forms people actually type — a
 * PostgreSQL array literal `{a,b,c}` or `a, b, c` — but a Python/JSON-style list written as
 * a string (`"['a','b']"`) is refused by name: the lesson the seed learnt in production.
 */
export const TagList = z.preprocess((value, ctx) => {
  if (typeof value !== 'string') return value
  const text = value.trim()
  if (/^\[.*\]$/s.test(text)) {
    ctx.addIssue({ code: 'custom', message: 'tags: a list written as text ("[...]") — send a JSON array or a PostgreSQL literal {a,b,c}' })
    return z.NEVER
  }
  const inner = /^\{.*\}$/s.test(text) ? text.slice(1, -1) : text
  return inner === '' ? [] : inner.split(',').map(tag => tag.trim().replace(/^"(.*)"$/, '$1'))
}, z.array(z.string().trim().toLowerCase().regex(TAG, 'tags: each tag is letters, digits, "_", ".", ":", "/" or "-", at most 48 characters, no space'))
  .max(20, 'tags: at most 20')
  .refine(tags => new Set(tags).size === tags.length, 'tags: a tag is repeated'))

export const LessonCreate = z.object({
  kind: z.enum(['scar', 'victory']),
  title: z.string().trim().min(3, 'title: at least 3 characters').max(200),
  description: z.string().trim().min(10, 'description: say what happened, at least 10 characters').max(10_000),
  checkAdded: z.string().trim().max(4_000).optional(),
  tags: TagList.optional().default([]),
  agent: z.string().trim().regex(CODENAME, 'agent: a codename (kebab-case)').max(64).optional().or(z.literal('')),
  tenantId: z.uuid('tenantId: a tenant id (uuid)').optional().or(z.literal('')),
  projectId: z.uuid('projectId: a project id (uuid)').optional().or(z.literal('')),
  importance: z.number().int().min(0).max(10).optional().nullable(),
  learnable: z.boolean().optional(),
}).strict()
export type LessonCreateInput = z.input<typeof LessonCreate>

export const LessonQuery = z.object({
  kind: z.enum(['scar', 'victory']).optional(),
  agent: z.string().trim().regex(CODENAME).max(64).optional(),
  tenant: z.uuid().optional(),
  minImportance: z.coerce.number().int().min(0).max(10).optional(),
  q: z.string().trim().max(200).optional(),
  archived: z.enum(['0', '1', 'hide', 'include', 'only']).optional(),
})

export const SuggestionQuery = z.object({
  status: z.enum(LEARN_SUGGESTION_STATUSES).optional(),
  agent: z.string().trim().regex(CODENAME).max(64).optional(),
})

export const SuggestionId = z.object({ id: z.coerce.number().int().positive() })

export const ApplyBody = z.object({
  agent: z.string().trim().regex(CODENAME, 'agent: a codename (kebab-case)').max(64).optional(),
}).strict()

export const ModifyBody = z.object({
  destination: z.enum(LEARN_DESTINATIONS).optional(),
  suggestion: z.string().trim().min(3).max(2_000).optional(),
  diffAfter: z.string().max(4_000).optional(),
  agent: z.string().trim().regex(CODENAME, 'agent: a codename (kebab-case)').max(64).optional(),
}).strict().refine(body => body.destination !== undefined || body.suggestion !== undefined || body.diffAfter !== undefined, 'modify: change the destination, the suggestion or diff_after')

export const RejectBody = z.object({ reason: z.string().trim().max(1_000).optional() }).strict()
