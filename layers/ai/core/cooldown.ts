// A provider that keeps failing is set aside for a while, so the next calls fail over at
// once instead of paying its timeouts and retries again. In memory, per process.
import type { ProviderId } from './catalog'

export interface CooldownPolicy {
  /** Consecutive failed calls (after their retries) that trigger a cooldown. */
  threshold: number
  cooldownMs: number
}

export const DEFAULT_COOLDOWN: CooldownPolicy = { threshold: 3, cooldownMs: 60_000 }

export interface CooldownState { provider: ProviderId, failures: number, until: number | null }

export interface Cooldown {
  isCooling: (provider: ProviderId) => boolean
  recordFailure: (provider: ProviderId) => void
  recordSuccess: (provider: ProviderId) => void
  state: () => CooldownState[]
}

export function createCooldown(policy: CooldownPolicy = DEFAULT_COOLDOWN, now: () => number = Date.now): Cooldown {
  const failures = new Map<ProviderId, number>()
  const until = new Map<ProviderId, number>()
  return {
    isCooling(provider) {
      const end = until.get(provider)
      if (end === undefined) return false
      if (now() < end) return true
      until.delete(provider)
      // Half-open: one more failure sets it aside again at once.
      failures.set(provider, policy.threshold - 1)
      return false
    },
    recordFailure(provider) {
      const count = (failures.get(provider) ?? 0) + 1
      failures.set(provider, count)
      if (count >= policy.threshold) until.set(provider, now() + policy.cooldownMs)
    },
    recordSuccess(provider) {
      failures.delete(provider)
      until.delete(provider)
    },
    state() {
      const providers = new Set([...failures.keys(), ...until.keys()])
      return [...providers].map(provider => ({ provider, failures: failures.get(provider) ?? 0, until: until.get(provider) ?? null }))
    },
  }
}
