import { ModelChoiceBody, setModelChoice } from '#layers/agents/core/engine/models'

// The signed-in person's model for their agent: one the surface allows, or null for Auto (400 model_not_allowed otherwise).
export default defineEventHandler(async (event) => {
  const body = await agentBody(event, ModelChoiceBody)
  const user = currentUser(event)
  return await agentCall(async () => ({
    surface: body.surface,
    choice: await setModelChoice(
      await useDb(),
      user.email,
      body.surface,
      body.provider && body.model ? { provider: body.provider, model: body.model } : null,
    ),
  }))
})
