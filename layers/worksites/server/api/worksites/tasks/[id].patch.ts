import { patchTask } from '#layers/worksites/core/items'
import { TaskPatch } from '#layers/worksites/shared/api'

// Operator: edits a task (its status moves through /transition only).
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const body = await worksitesBody(event, TaskPatch)
  const user = currentUser(event)
  return await worksitesCall(async () => patchTask(await useDb(), id, body, user.email))
})
