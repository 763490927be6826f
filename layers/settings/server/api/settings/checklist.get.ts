import { readChecklist } from '#layers/settings/core/checklist'

// Any role (a read): the home page's first-run checklist.
export default defineEventHandler(async () => {
  return await readChecklist(await useDb(), process.env, useAiFacade().providers())
})
