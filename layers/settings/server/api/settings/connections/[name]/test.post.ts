import { recordAudit } from '#db/audit'
import { CONNECTION_TESTED } from '#layers/settings/core/checklist'
import { testConnection } from '#layers/settings/core/connection-tests'
import { createRateLimiter } from '#layers/settings/core/rate-limit'
import { ConnectionParams } from '#layers/settings/core/schemas'

// Light: a person may test 12 connections a minute (each opens a socket, a sandbox or spends a token).
const limiter = createRateLimiter({ limit: 12, windowMs: 60_000 })

// Operator (a write in shared/access.ts): really connects, audited with its outcome.
export default defineEventHandler(async (event) => {
  const { name } = validInput(ConnectionParams, getRouterParams(event))
  const user = currentUser(event)
  if (!limiter.take(user.email)) {
    const seconds = Math.ceil(limiter.retryAfterMs(user.email) / 1000)
    setResponseHeader(event, 'retry-after', seconds)
    throw createError({ statusCode: 429, statusMessage: `Too many connection tests: try again in ${seconds} s.`, data: { code: 'too_many_tests', retryAfterSeconds: seconds } })
  }
  const result = await testConnection(name, { env: process.env, facade: useAiFacade(), actor: user.email })
  await recordAudit(await useDb(), {
    actor: user.email,
    action: CONNECTION_TESTED,
    target: name,
    details: { ok: result.ok, detail: result.detail, elapsedMs: result.elapsedMs },
  })
  return result
})
