import { listSuggestions, suggestionStats } from '#layers/learning/core/suggestions'
import { SuggestionQuery } from '#layers/learning/shared/api'

// Any signed-in role: the suggestion feed (pending first) and the decision counts.
export default defineEventHandler(async (event) => {
  const query = await learningQuery(event, SuggestionQuery)
  const db = await useDb()
  return { suggestions: await listSuggestions(db, query), stats: await suggestionStats(db) }
})
