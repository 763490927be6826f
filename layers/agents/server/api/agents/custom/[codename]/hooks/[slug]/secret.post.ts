import { HookParams, HookSecretBody } from '#layers/agents/core/custom/api'
import { revealHookSecret } from '#layers/agents/core/custom/hook-admin'
import { webhookSealKey } from '#layers/agents/core/custom/webhook-secrets'

// "Show secret" / "Rotate secret" of a webhook trigger: its secret, for the person pasting it
// into the forge (edit level on the agent; audited, the secret never written anywhere else).
export default defineEventHandler(async (event) => {
  const { codename, slug } = agentParams(event, HookParams)
  const { rotate } = await agentBody(event, HookSecretBody)
  const user = currentUser(event)
  const { password } = useRuntimeConfig().session as { password: string }
  setResponseHeader(event, 'cache-control', 'no-store')
  return await agentCall(async () => await revealHookSecret(await useDb(), user, codename, slug, webhookSealKey(password), rotate))
})
