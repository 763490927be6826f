import type { H3Event } from 'h3'

/**
 * Server-sent events for a live view: a `version` event whenever `read()` answers something
 * new (checked every `everyMs`), which the page's useLiveVersion turns into a refresh.
 */
export function sendVersionStream(event: H3Event, read: () => Promise<string>, everyMs = 2000) {
  const stream = createEventStream(event)
  let last = ''
  let busy = false
  let warned = false
  const tick = async () => {
    if (busy) return
    busy = true
    try {
      const version = await read()
      warned = false
      if (version !== last) {
        last = version
        await stream.push({ event: 'version', data: version })
      }
    }
    catch (error) {
      // The database hiccuped: the next tick tries again (said once per outage).
      if (!warned) console.warn(`[live] ${event.path}: reading the version failed, retrying: ${(error as Error).message}`)
      warned = true
    }
    finally {
      busy = false
    }
  }
  const timer = setInterval(() => void tick(), everyMs)
  stream.onClosed(async () => {
    clearInterval(timer)
    await stream.close()
  })
  void tick()
  return stream.send()
}
