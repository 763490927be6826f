import { createTask } from '#layers/worksites/core/items'
import { TaskCreate } from '#layers/worksites/shared/api'

// Operator: a new task (see core/items.ts for where it starts and what it must belong to).
export default defineEventHandler(async (event) => {
  const body = await worksitesBody(event, TaskCreate)
  const user = currentUser(event)
  return await worksitesCall(async () => createTask(await useDb(), body, user.email))
})
