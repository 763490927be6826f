import { upsertRouting } from '#layers/ai/core/routing-store'
import { FeatureParams, RoutingBody } from '#layers/ai/core/api-schemas'

// Operator+: sets a feature's provider and model; effective on the next 'auto' call, audited.
export default defineEventHandler(async (event) => {
  const { feature } = await getValidatedRouterParams(event, FeatureParams.parse)
  const edit = await readValidatedBody(event, RoutingBody.parse)
  const user = currentUser(event)
  return await upsertRouting(await useDb(), feature, edit, user.email)
})
