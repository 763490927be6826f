import { createChantier } from '#layers/worksites/core/items'
import { ChantierCreate } from '#layers/worksites/shared/api'

// Operator: a new chantier (see core/items.ts for where it starts and what it must belong to).
export default defineEventHandler(async (event) => {
  const body = await worksitesBody(event, ChantierCreate)
  const user = currentUser(event)
  return await worksitesCall(async () => createChantier(await useDb(), body, user.email))
})
