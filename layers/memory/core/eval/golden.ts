// The golden dataset: queries and the source identifiers each should recall. A result
// matches an expected identifier by case-insensitive substring of "type:id" or
// "type:title", robust to path prefixes and identifier formats. Each query has a kind, so
// the gate reports (and holds) every kind on its own: a fix for one kind that costs another
// shows, where an average over all of them would hide it.
import { z } from 'zod'

/**
 * keyword: words the source holds as written; identifier: a proper noun or a slug; stem:
 * another inflection of the source's words (supprimée / supprimé); accent: typed without
 * (or with other) accents; typo: misspelt; multi-hop: answered by two linked notes;
 * unanswerable: nothing in the vault answers it — the right answer is "nothing relevant".
 */
export const QUERY_KINDS = ['keyword', 'identifier', 'stem', 'accent', 'typo', 'multi-hop', 'unanswerable'] as const
export type QueryKind = typeof QUERY_KINDS[number]
export const DEFAULT_KIND: QueryKind = 'keyword'

export const GoldenQuery = z.object({
  id: z.string().trim().min(1).max(100).optional(),
  /** Absent: keyword. */
  kind: z.enum(QUERY_KINDS).optional(),
  query: z.string().trim().min(1, 'query is empty').max(2000),
  /** Empty only for an unanswerable query (and required empty there). */
  expected: z.array(z.string().trim().min(1, 'an expected identifier is empty').max(500)),
  note: z.string().max(2000).optional(),
}).strict().superRefine((query, context) => {
  if (query.kind === 'unanswerable' && query.expected.length > 0) context.addIssue({ code: 'custom', path: ['expected'], message: 'expected: an unanswerable query expects no source' })
  if (query.kind !== 'unanswerable' && query.expected.length === 0) context.addIssue({ code: 'custom', path: ['expected'], message: 'expected: at least one source identifier' })
})

export const GoldenSet = z.object({
  description: z.string().max(5000).optional(),
  k: z.number().int().min(1).max(100).default(5),
  queries: z.array(GoldenQuery).min(1, 'queries: at least one'),
}).strict()

export type GoldenSet = z.infer<typeof GoldenSet>
export type GoldenQuery = z.infer<typeof GoldenQuery>

export class GoldenError extends Error {
  readonly code = 'bad_golden'
  constructor(message: string) {
    super(message)
    this.name = 'GoldenError'
  }
}

export function parseGolden(text: string, origin: string): GoldenSet {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  }
  catch (error) {
    throw new GoldenError(`${origin}: not valid JSON (${(error as Error).message})`)
  }
  const parsed = GoldenSet.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new GoldenError(`${origin}: ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  return parsed.data
}
