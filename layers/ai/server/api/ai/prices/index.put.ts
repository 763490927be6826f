import { PriceBody } from '#layers/ai/core/api-schemas'
import { upsertPrice } from '#layers/ai/core/prices'

// Operator+: sets a model's list price (USD per million tokens), audited; applies to the next ledger rows.
export default defineEventHandler(async (event) => {
  const edit = await readValidatedBody(event, PriceBody.parse)
  return await upsertPrice(await useDb(), edit, currentUser(event).email)
})
