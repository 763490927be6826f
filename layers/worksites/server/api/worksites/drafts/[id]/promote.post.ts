import { promoteDraft } from '#layers/worksites/core/drafts'
import { PromoteInput } from '#layers/worksites/shared/api'

// Operator: a draft becomes a planned chantier of a project, with its jobs and their tasks.
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const body = await worksitesBody(event, PromoteInput)
  const user = currentUser(event)
  return await worksitesCall(async () => promoteDraft(await useDb(), id, body, user.email))
})
