import { modifyAndApplySuggestion } from '#layers/learning/core/validation'
import { ModifyBody, SuggestionId } from '#layers/learning/shared/api'

// Operators and founders: edit the suggestion, then apply it (status `modified`, both versions audited).
export default defineEventHandler(async (event) => {
  const { id } = await learningParams(event, SuggestionId)
  const body = await learningBody(event, ModifyBody)
  return await learningCall(async () => modifyAndApplySuggestion(await useValidationDeps(), id, currentUser(event).email, body))
})
