import { rejectDraft } from '../../../../../core/drafts'
import { RejectInput } from '../../../../../shared/api'

// Operator: a draft rejected with its reason; the classifier's calibration report counts it.
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  const { reason } = await worksitesBody(event, RejectInput)
  const user = currentUser(event)
  return await worksitesCall(async () => rejectDraft(await useDb(), id, reason, user.email))
})
