// zod-checked input, refused with one machine-readable 400 for every layer's routes:
// { statusMessage: '<path>: <message>', data: { code: 'bad_input', issues: [{ path, message }] } }.
// The worksites and learning routes answer in more detail, kept through BadInputShape.
import type { z } from 'zod'

export interface BadInputShape {
  /** data.field (the first issue's path) and each issue's zod code, as worksites and learning answer. */
  field?: boolean
  /** data.code too_long (not bad_input) for a text over its maximum, as worksites answers. */
  tooLong?: boolean
}

/** Throws zod's refusal as the 400 above. */
export function throwBadInput(error: z.ZodError, shape: BadInputShape = {}): never {
  const issues = error.issues.map(issue => shape.field
    ? { path: issue.path.join('.'), code: issue.code, message: issue.message }
    : { path: issue.path.join('.'), message: issue.message })
  const tooLong = shape.tooLong === true && error.issues.some(issue => issue.code === 'too_big' && (issue as { origin?: string }).origin === 'string')
  const first = issues[0]
  throw createError({
    statusCode: 400,
    statusMessage: first ? `${first.path || 'input'}: ${first.message}` : 'Invalid input.',
    data: { code: tooLong ? 'too_long' : 'bad_input', ...(shape.field ? { field: first?.path } : {}), issues },
  })
}

/**
 * The input as the schema reads it, or the 400 above. Routes read the input and validate it
 * here rather than through h3's readValidatedBody & co: those wrap any error of the validator
 * into their own "Validation Error", which would lose data.code.
 */
export function validInput<S extends z.ZodType>(schema: S, data: unknown, shape: BadInputShape = {}): z.output<S> {
  const parsed = schema.safeParse(data)
  if (!parsed.success) throwBadInput(parsed.error, shape)
  return parsed.data
}
