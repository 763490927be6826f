import type { H3Event } from 'h3'

/**
 * Server-sent events for a live view: a `version` event whenever `read()` answers something
 * new (checked every `everyMs`), which the page's useLiveVersion turns into a refresh.
 */
export function sendVersionStream(event: H3Event, read: () => Promise<string>, everyMs = 2000) {
  let last = ''
  return sendPollingStream(event, everyMs, event.path, async (stream) => {
    const version = await read()
    if (version === last) return
    last = version
    await stream.push({ event: 'version', data: version })
  })
}
