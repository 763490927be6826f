// A light limit on connection tests (each one opens a socket, starts a sandbox or spends a
// token): so many per person per window, counted in memory (one hub process).
export interface RateLimiter {
  /** True when the person may test now (the attempt is counted); false past the limit. */
  take: (who: string) => boolean
  /** Milliseconds until the oldest counted attempt leaves the window. */
  retryAfterMs: (who: string) => number
}

export function createRateLimiter(options: { limit: number, windowMs: number, now?: () => number }): RateLimiter {
  const now = options.now ?? Date.now
  const attempts = new Map<string, number[]>()
  const recent = (who: string) => {
    const cutoff = now() - options.windowMs
    const kept = (attempts.get(who) ?? []).filter(at => at > cutoff)
    if (kept.length) attempts.set(who, kept)
    else attempts.delete(who)
    return kept
  }
  return {
    take: (who) => {
      const kept = recent(who)
      if (kept.length >= options.limit) return false
      attempts.set(who, [...kept, now()])
      return true
    },
    retryAfterMs: (who) => {
      const oldest = recent(who)[0]
      return oldest === undefined ? 0 : Math.max(0, oldest + options.windowMs - now())
    },
  }
}
