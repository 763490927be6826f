// A cap on the live streams one session holds open at once. Each stream polls the database
// every second or two: hundreds of them from one cookie slowed every other person's requests.

export interface StreamCap {
  /** A slot for `key`, or null when it holds `max` already; call release() once when done. */
  acquire: (key: string) => { release: () => void } | null
  /** Streams open for `key` now. */
  count: (key: string) => number
}

export function createStreamCap(max: number): StreamCap {
  const open = new Map<string, number>()
  return {
    acquire(key) {
      const held = open.get(key) ?? 0
      if (held >= max) return null
      open.set(key, held + 1)
      let released = false
      return {
        release() {
          if (released) return
          released = true
          const now = (open.get(key) ?? 1) - 1
          if (now > 0) open.set(key, now)
          else open.delete(key)
        },
      }
    },
    count: key => open.get(key) ?? 0,
  }
}

export const DEFAULT_STREAMS_PER_SESSION = 10

/** HUB_MAX_STREAMS_PER_SESSION, a whole number ≥ 1; anything else is the default. */
export function streamsPerSession(raw: string | undefined): number {
  const value = Number(raw)
  return Number.isInteger(value) && value >= 1 ? value : DEFAULT_STREAMS_PER_SESSION
}
