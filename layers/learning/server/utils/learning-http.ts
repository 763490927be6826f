// What every learning route shares: zod-validated input answered with base's machine-readable 400
// ({ data: { code: 'bad_input', field, issues } }), and the core's refusals turned into
// their HTTP status and code.
import type { H3Event } from 'h3'
import type { z } from 'zod'
import { ValidationError } from '../../core/validation'
import { LessonInputError } from '../../core/record'

const SHAPE = { field: true }

export const learningBody = async <S extends z.ZodType>(event: H3Event, schema: S) =>
  validInput(schema, (await readBody(event)) ?? {}, SHAPE)
export const learningQuery = async <S extends z.ZodType>(event: H3Event, schema: S) => validInput(schema, getQuery(event), SHAPE)
export const learningParams = async <S extends z.ZodType>(event: H3Event, schema: S) => validInput(schema, getRouterParams(event), SHAPE)

export async function learningCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof ValidationError)
      throw createError({ statusCode: error.status, statusMessage: error.message, data: { code: error.code } })
    if (error instanceof LessonInputError) throw createError({ statusCode: 400, statusMessage: error.message, data: { code: error.code } })
    throw error
  }
}

/** The validation's folders and database, for a decision route. */
export async function useValidationDeps() {
  const config = useMemoryConfig()
  return { db: await useDb(), reflexDir: config.reflexDir, vaultDir: config.vaultDir }
}
