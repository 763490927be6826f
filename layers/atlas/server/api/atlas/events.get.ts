import { inboxVersion } from '#layers/atlas/core/queries'

// Server-sent events for the live inbox: a `version` event whenever anything the inbox shows
// changed (checked every 2 s), and a comment line as heartbeat.
export default defineEventHandler(async (event) => {
  const db = await useDb()
  return sendVersionStream(event, () => inboxVersion(db))
})
