import type { H3Event } from 'h3'
import type { z } from 'zod'
import { EngineError } from '../../core/engine/errors'
import { UsageLimitError } from '../../core/engine/usage'

/** zod-checked input answered with a machine-readable 400 (data.code bad_input and the issues). */
export function agentInput<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const parsed = schema.safeParse(data)
  if (parsed.success) return parsed.data
  const issues = parsed.error.issues.map(issue => ({ path: issue.path.join('.'), message: issue.message }))
  throw createError({ statusCode: 400, statusMessage: `${issues[0]?.path || 'input'}: ${issues[0]?.message ?? 'invalid'}`, data: { code: 'bad_input', issues } })
}

export const agentBody = async <S extends z.ZodType>(event: H3Event, schema: S) => agentInput(schema, await readBody(event).catch(() => undefined))
export const agentParams = <S extends z.ZodType>(event: H3Event, schema: S) => agentInput(schema, getRouterParams(event))

/** Runs an engine call; its refusals become HTTP errors with { data: { code, … } }. */
export async function agentCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof EngineError) throw createError({ statusCode: error.status, statusMessage: error.message, data: { code: error.code, ...error.details } })
    if (error instanceof UsageLimitError) throw createError({ statusCode: 429, statusMessage: error.message, data: { code: error.code, limit: error.limit, max: error.max, usage: error.usage } })
    throw error
  }
}
