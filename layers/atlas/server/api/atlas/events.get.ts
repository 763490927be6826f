import { inboxVersion } from '../../../core/queries'

const EVERY_MS = 2000

// Server-sent events for the live inbox: a `version` event whenever anything the inbox shows
// changed (checked every 2 s), and a comment line as heartbeat.
export default defineEventHandler(async (event) => {
  const db = await useDb()
  const stream = createEventStream(event)
  let last = ''
  let busy = false
  const tick = async () => {
    if (busy) return
    busy = true
    try {
      const version = await inboxVersion(db)
      if (version !== last) {
        last = version
        await stream.push({ event: 'version', data: version })
      }
    }
    catch {
      // The database hiccuped: the next tick tries again.
    }
    finally {
      busy = false
    }
  }
  const timer = setInterval(() => void tick(), EVERY_MS)
  stream.onClosed(async () => {
    clearInterval(timer)
    await stream.close()
  })
  void tick()
  return stream.send()
})
