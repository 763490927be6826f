import { listAutomations } from '#layers/health/core/automations'

export default defineEventHandler(async () => {
  return await listAutomations(await useDb())
})
