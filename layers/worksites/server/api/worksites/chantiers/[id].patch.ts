import { patchChantier } from '#layers/worksites/core/items'
import { ChantierPatch } from '#layers/worksites/shared/api'

// Operator: edits a chantier (its status moves through /transition only).
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const body = await worksitesBody(event, ChantierPatch)
  const user = currentUser(event)
  return await worksitesCall(async () => patchChantier(await useDb(), id, body, user.email))
})
