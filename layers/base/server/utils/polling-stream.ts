import type { EventStreamMessage, H3Event } from 'h3'
import { createStreamCap, streamsPerSession } from '../../core/stream-cap'

const cap = createStreamCap(streamsPerSession(process.env.HUB_MAX_STREAMS_PER_SESSION))

/** Whose streams these are: the access token (set by the auth middleware), the session cookie, or the address of a caller without one. */
function streamOwner(event: H3Event): string {
  const token = event.context.hubToken as { id: string } | undefined
  if (token) return `token:${token.id}`
  const { name } = useRuntimeConfig().session as { name: string }
  const sealed = getCookie(event, name)
  return sealed ? `session:${sealed}` : `address:${getRequestIP(event) ?? 'unknown'}`
}

export interface PollingStream {
  push: (message: EventStreamMessage) => Promise<void>
  /** Ends the stream: no poll runs after it. */
  stop: () => Promise<void>
}

/**
 * Server-sent events fed by polling the database: `poll` runs at once, then every `everyMs`
 * (never two at a time), pushes what changed, and may stop the stream. A failed poll is logged
 * once per outage (`what` names the stream) and the next one tries again; the viewer keeps
 * what it has meanwhile. One session holds at most HUB_MAX_STREAMS_PER_SESSION streams at once
 * (429 too_many_streams past it).
 */
export function sendPollingStream(event: H3Event, everyMs: number, what: string, poll: (stream: PollingStream) => Promise<void>) {
  const slot = cap.acquire(streamOwner(event))
  if (!slot) {
    const message = 'This session already has the most live views open at once: close another tab of the hub, then reload this one.'
    throw createError({ statusCode: 429, statusMessage: message, data: { code: 'too_many_streams', message } })
  }
  const stream = createEventStream(event)
  let busy = false
  let closed = false
  let warned = false
  const live: PollingStream = {
    push: async message => await stream.push(message),
    stop: async () => {
      if (closed) return
      closed = true
      slot.release()
      clearInterval(timer)
      await stream.close()
    },
  }
  const tick = async () => {
    if (busy || closed) return
    busy = true
    try {
      await poll(live)
      warned = false
    }
    catch (error) {
      if (!warned) console.warn(`[live] ${what}: a poll failed, retrying: ${(error as Error).message}`)
      warned = true
    }
    finally {
      busy = false
    }
  }
  const timer = setInterval(() => void tick(), everyMs)
  stream.onClosed(live.stop)
  void tick()
  return stream.send()
}
