import { listAutomations } from '../../../core/automations'

export default defineEventHandler(async () => {
  return await listAutomations(await useDb())
})
