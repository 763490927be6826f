import { rejectSuggestion } from '#layers/learning/core/validation'
import { RejectBody, SuggestionId } from '#layers/learning/shared/api'

// Operators and founders: refuse the suggestion (nothing is written but the audit log).
export default defineEventHandler(async (event) => {
  const { id } = await learningParams(event, SuggestionId)
  const body = await learningBody(event, RejectBody)
  return await learningCall(async () => rejectSuggestion(await useValidationDeps(), id, currentUser(event).email, body.reason))
})
