import { z } from 'zod'
import { setAutomationActive } from '#layers/health/core/automations'

const Params = z.object({ name: z.string().min(1).max(100) })
const Body = z.object({ active: z.boolean() })

// Founder only (shared/access.ts): switches the automate's circuit breaker, audited.
export default defineEventHandler(async (event) => {
  const { name } = await getValidatedRouterParams(event, Params.parse)
  const { active } = await readValidatedBody(event, Body.parse)
  const user = currentUser(event)
  const found = await setAutomationActive(await useDb(), name, active, user.email)
  if (!found) throw createError({ statusCode: 404, statusMessage: `No automation named ${name}.`, data: { code: 'not_found' } })
  return { name, active }
})
