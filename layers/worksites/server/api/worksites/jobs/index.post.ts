import { createJob } from '#layers/worksites/core/items'
import { JobCreate } from '#layers/worksites/shared/api'

// Operator: a new job (see core/items.ts for where it starts and what it must belong to).
export default defineEventHandler(async (event) => {
  const body = await worksitesBody(event, JobCreate)
  const user = currentUser(event)
  return await worksitesCall(async () => createJob(await useDb(), body, user.email))
})
