import { patchJob } from '#layers/worksites/core/items'
import { JobPatch } from '#layers/worksites/shared/api'

// Operator: edits a job (its status moves through /transition only).
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const body = await worksitesBody(event, JobPatch)
  const user = currentUser(event)
  return await worksitesCall(async () => patchJob(await useDb(), id, body, user.email))
})
