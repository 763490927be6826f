import { setIncluded } from '#layers/ai/core/prices'
import { IncludedBody } from '#layers/ai/core/schemas'

// Founder only (shared/access.ts): a priced model in or out of the studio's allowance, audited.
export default defineEventHandler(async (event) => {
  const body = validInput(IncludedBody, await readBody(event).catch(() => undefined))
  const price = await setIncluded(await useDb(), body.provider, body.model, body.included, currentUser(event).email)
  if (!price) throw createError({ statusCode: 404, statusMessage: `no price for ${body.provider}/${body.model}`, data: { code: 'not_found', message: `no price for ${body.provider}/${body.model}: add its price first` } })
  return { price }
})
