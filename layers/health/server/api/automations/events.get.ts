import { automationsVersion } from '#layers/health/core/automations'

// Server-sent events for the home page's live counters and automations table: a `version`
// event whenever a run starts or ends, a switch is flipped or an alert is raised or resolved.
export default defineEventHandler(async (event) => {
  const db = await useDb()
  return sendVersionStream(event, () => automationsVersion(db))
})
