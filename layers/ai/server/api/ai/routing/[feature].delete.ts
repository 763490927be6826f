import { AI_ROUTING_GLOBAL } from '#db/schema/ai'
import { deleteRouting } from '#layers/ai/core/routing-store'
import { FeatureParams } from '#layers/ai/core/api-schemas'

// Operator+: removes a feature's row (it then inherits the global row), audited.
export default defineEventHandler(async (event) => {
  const { feature } = await getValidatedRouterParams(event, FeatureParams.parse)
  if (feature === AI_ROUTING_GLOBAL) {
    throw createError({ statusCode: 409, statusMessage: 'The global row cannot be removed: every feature falls back to it. Edit it instead.', data: { code: 'global_row_required' } })
  }
  const removed = await deleteRouting(await useDb(), feature, currentUser(event).email)
  if (!removed) throw createError({ statusCode: 404, statusMessage: `No routing row for ${feature}.`, data: { code: 'not_found' } })
  return { feature, removed: true }
})
