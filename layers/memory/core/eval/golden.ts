// The golden dataset: queries and the source identifiers each should recall. A result
// matches an expected identifier by case-insensitive substring of "type:id" or
// "type:title", robust to path prefixes and identifier formats.
import { z } from 'zod'

export const GoldenQuery = z.object({
  id: z.string().trim().min(1).max(100).optional(),
  query: z.string().trim().min(1, 'query is empty').max(2000),
  expected: z.array(z.string().trim().min(1, 'an expected identifier is empty').max(500)).min(1, 'expected: at least one source identifier'),
  note: z.string().max(2000).optional(),
}).strict()

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
