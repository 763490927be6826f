import { setSurfaceModels, SurfaceModelsBody, SurfaceParams } from '#layers/agents/core/engine/models'

// Founder only (shared/access.ts): the ordered list of models a surface allows. A model
// left out or disabled is withdrawn: a person who chose it runs on Auto at their next run.
export default defineEventHandler(async (event) => {
  const { surface } = agentParams(event, SurfaceParams)
  const body = await agentBody(event, SurfaceModelsBody)
  const user = currentUser(event)
  return await agentCall(async () => ({ surface, models: await setSurfaceModels(await useDb(), surface, body.models, user.email) }))
})
