import { listItems } from '#layers/worksites/core/items'
import { ItemListQuery } from '#layers/worksites/shared/api'

// Any signed-in role: jobs by project, chantier, job, status, scope, owner and text, sorted, paged by cursor.
export default defineEventHandler(async (event) => {
  const query = await worksitesQuery(event, ItemListQuery)
  return await worksitesCall(async () => listItems(await useDb(), 'job', query))
})
