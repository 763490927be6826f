// What every worksites route shares: zod-validated input answered with a machine-readable 400
// (data.code bad_input, or too_long for a text over its maximum, with zod's issues), and the
// core's refusals (WorksitesError) turned into their HTTP status and body.
import type { H3Event } from 'h3'
import type { z } from 'zod'
import { httpErrorOf, WorksitesError } from '../../core/errors'

function invalid(error: z.ZodError): never {
  const issues = error.issues.map(issue => ({ path: issue.path.join('.'), code: issue.code, message: issue.message }))
  const tooLong = error.issues.some(issue => issue.code === 'too_big' && (issue as { origin?: string }).origin === 'string')
  const first = issues[0]
  throw createError({
    statusCode: 400,
    statusMessage: first ? `${first.path || 'input'}: ${first.message}` : 'Invalid input.',
    data: { code: tooLong ? 'too_long' : 'bad_input', field: first?.path, issues },
  })
}

function parser<S extends z.ZodType>(schema: S) {
  return (data: unknown): z.infer<S> => {
    const parsed = schema.safeParse(data)
    if (!parsed.success) invalid(parsed.error)
    return parsed.data
  }
}

// Read, then validated here rather than through h3's readValidatedBody & co: those wrap any
// error of the validator into their own "Validation Error", which would lose data.code.
export const worksitesBody = async <S extends z.ZodType>(event: H3Event, schema: S) => parser(schema)(await readBody(event))
export const worksitesQuery = async <S extends z.ZodType>(event: H3Event, schema: S) => parser(schema)(getQuery(event))
export const worksitesParams = async <S extends z.ZodType>(event: H3Event, schema: S) => parser(schema)(getRouterParams(event))

/** Runs the core call; its refusals become HTTP errors with { data: { code, … } }. */
export async function worksitesCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof WorksitesError) throw createError(httpErrorOf(error))
    throw error
  }
}
