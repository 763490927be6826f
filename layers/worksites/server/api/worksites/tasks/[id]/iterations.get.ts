import { notFound } from '#layers/worksites/core/errors'
import { getItem } from '#layers/worksites/core/items'
import { listIterations } from '#layers/worksites/core/iterations'

// Any signed-in role: the task's iterations (one per spawn attempt at least), in step order.
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  return await worksitesCall(async () => {
    const db = await useDb()
    if (!await getItem(db, 'task', id)) throw notFound('task', id)
    return { items: await listIterations(db, id) }
  })
})
