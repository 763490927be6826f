import { learningVersion } from '#layers/learning/core/suggestions'

// Server-sent events for the live learning page: a `version` whenever a lesson or a suggestion arrives or is decided.
export default defineEventHandler(async (event) => {
  const db = await useDb()
  return sendVersionStream(event, () => learningVersion(db))
})
