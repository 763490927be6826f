import { rejectDraft } from '#layers/worksites/core/drafts'
import { RejectInput } from '#layers/worksites/shared/api'

// Operator: a draft rejected with its reason; the classifier's calibration report counts it.
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const { reason } = await worksitesBody(event, RejectInput)
  const user = currentUser(event)
  return await worksitesCall(async () => rejectDraft(await useDb(), id, reason, user.email))
})
