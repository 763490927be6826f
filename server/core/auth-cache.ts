// What the auth middleware remembers between requests, so a signed-in read costs neither a
// cookie unseal (PBKDF2 and HMAC through WebCrypto) nor a hub_users query each time:
// - a sealed cookie's content, until the seal's own age limit (the same string always
//   unseals to the same data, so this cache is never wrong, only bounded);
// - an account's row for at most USER_TTL_MS: a change made through the hub (sign-out,
//   password change) forgets it at once; one made in SQL from elsewhere is seen within a second.
import type { HubUser } from '#db/schema/index'

export const USER_TTL_MS = 1000
const SESSION_TTL_MS = 60_000
const MAX_ENTRIES = 5000

export interface ExpiringCache<K, V> {
  get: (key: K, now?: number) => V | undefined
  set: (key: K, value: V, expiresAt: number) => void
  delete: (key: K) => void
  clear: () => void
}

/** A small map whose entries expire; past `max` entries the oldest go first. */
export function createExpiringCache<K, V>(max = MAX_ENTRIES): ExpiringCache<K, V> {
  const entries = new Map<K, { value: V, expiresAt: number }>()
  return {
    get(key, now = Date.now()) {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry.expiresAt > now) return entry.value
      entries.delete(key)
      return undefined
    },
    set(key, value, expiresAt) {
      entries.delete(key)
      entries.set(key, { value, expiresAt })
      if (entries.size > max) entries.delete(entries.keys().next().value as K)
    },
    delete: key => void entries.delete(key),
    clear: () => entries.clear(),
  }
}

export interface CachedSession { userId: string, version: number | undefined }

export const sealedSessions = createExpiringCache<string, CachedSession>()

/** How long a cookie sealed at createdAt may stay remembered: never past its own maxAge. */
export function sessionExpiry(createdAt: number | undefined, maxAgeSeconds: number, now = Date.now()): number {
  if (!createdAt) return 0
  return Math.min(now + SESSION_TTL_MS, createdAt + maxAgeSeconds * 1000)
}

const signedInUsers = createExpiringCache<string, HubUser>()
/** Bumped by each forget: a read that started before it must not remember what it found. */
const generations = new Map<string, number>()

/** The account's row, remembered for USER_TTL_MS. */
export async function rememberedAccount(userId: string, load: (id: string) => Promise<HubUser | undefined>): Promise<HubUser | undefined> {
  const known = signedInUsers.get(userId)
  if (known) return known
  const generation = generations.get(userId) ?? 0
  const user = await load(userId)
  if (user && (generations.get(userId) ?? 0) === generation) signedInUsers.set(userId, user, Date.now() + USER_TTL_MS)
  return user
}

/** Forgets an account's remembered row: its session version or password just changed. */
export function forgetSignedInUser(userId: string): void {
  signedInUsers.delete(userId)
  generations.set(userId, (generations.get(userId) ?? 0) + 1)
}
