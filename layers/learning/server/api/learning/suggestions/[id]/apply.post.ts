import { applySuggestion } from '#layers/learning/core/validation'
import { ApplyBody, SuggestionId } from '#layers/learning/shared/api'

// Operators and founders: apply the suggestion as proposed (writes its destination and the audit log).
export default defineEventHandler(async (event) => {
  const { id } = await learningParams(event, SuggestionId)
  const body = await learningBody(event, ApplyBody)
  return await learningCall(async () => applySuggestion(await useValidationDeps(), id, currentUser(event).email, body))
})
