// What every learning route shares: zod-validated input answered with a machine-readable 400
// ({ data: { code: 'bad_input', field, issues } }), and the core's refusals turned into
// their HTTP status and code.
import type { H3Event } from 'h3'
import type { z } from 'zod'
import { ValidationError } from '../../core/validation'
import { LessonInputError } from '../../core/record'

function parser<S extends z.ZodType>(schema: S) {
  return (data: unknown): z.infer<S> => {
    const parsed = schema.safeParse(data)
    if (parsed.success) return parsed.data
    const issues = parsed.error.issues.map(issue => ({ path: issue.path.join('.'), code: issue.code, message: issue.message }))
    const first = issues[0]
    throw createError({ statusCode: 400, statusMessage: first ? `${first.path || 'input'}: ${first.message}` : 'Invalid input.', data: { code: 'bad_input', field: first?.path, issues } })
  }
}

// Read, then validated here: h3's readValidatedBody would wrap the error and lose data.code.
export const learningBody = async <S extends z.ZodType>(event: H3Event, schema: S) => parser(schema)((await readBody(event)) ?? {})
export const learningQuery = async <S extends z.ZodType>(event: H3Event, schema: S) => parser(schema)(getQuery(event))
export const learningParams = async <S extends z.ZodType>(event: H3Event, schema: S) => parser(schema)(getRouterParams(event))

export async function learningCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof ValidationError) throw createError({ statusCode: error.status, statusMessage: error.message, data: { code: error.code } })
    if (error instanceof LessonInputError) throw createError({ statusCode: 400, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
}

/** The validation's folders and database, for a decision route. */
export async function useValidationDeps() {
  const config = useMemoryConfig()
  return { db: await useDb(), reflexDir: config.reflexDir, vaultDir: config.vaultDir }
}
