// What every worksites route shares: zod-validated input answered with base's machine-readable
// 400 (data.code bad_input, or too_long for a text over its maximum, the field, zod's issues), and the
// core's refusals (WorksitesError) turned into their HTTP status and body.
import type { H3Event } from 'h3'
import type { z } from 'zod'
import { httpErrorOf, WorksitesError } from '../../core/errors'

const SHAPE = { field: true, tooLong: true }

export const worksitesBody = async <S extends z.ZodType>(event: H3Event, schema: S) => validInput(schema, await readBody(event), SHAPE)
export const worksitesQuery = async <S extends z.ZodType>(event: H3Event, schema: S) => validInput(schema, getQuery(event), SHAPE)
export const worksitesParams = async <S extends z.ZodType>(event: H3Event, schema: S) => validInput(schema, getRouterParams(event), SHAPE)

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
