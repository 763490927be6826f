import type { H3Event } from 'h3'
import type { z } from 'zod'
import { EngineError } from '../../core/engine/errors'
import { UsageLimitError } from '../../core/engine/usage'
import { BudgetExceededError } from '../../core/engine/budget'

// zod-checked input answered with base's machine-readable 400 (data.code bad_input and the issues).
export const agentBody = async <S extends z.ZodType>(event: H3Event, schema: S) =>
  validInput(schema, await readBody(event).catch(() => undefined))
export const agentParams = <S extends z.ZodType>(event: H3Event, schema: S) => validInput(schema, getRouterParams(event))

/** Runs an engine call; its refusals become HTTP errors with { data: { code, … } }. */
export async function agentCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof EngineError)
      throw createError({ statusCode: error.status, statusMessage: error.message, data: { code: error.code, ...error.details } })
    if (error instanceof UsageLimitError)
      throw createError({
        statusCode: 429,
        statusMessage: error.message,
        data: { code: error.code, limit: error.limit, max: error.max, usage: error.usage },
      })
    if (error instanceof BudgetExceededError)
      throw createError({
        statusCode: 429,
        statusMessage: error.message,
        data: {
          code: error.code,
          message: error.message,
          budget: {
            kind: error.status.kind,
            subject: error.status.subject,
            month: error.status.month,
            limits: error.status.limits,
            credit: error.status.usage.credit,
          },
        },
      })
    throw error
  }
}
