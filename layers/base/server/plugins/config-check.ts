// The hub's own settings are checked once at start: a wrong value stops the hub with its
// reason rather than failing every sign-in (HUB_PUBLIC_URL, layers/base/core/session-cookie.ts)
// or the first request that opens the pool (HUB_STATEMENT_TIMEOUT_MS, db/session-settings.ts).
import { hubSessionSettings } from '#db/session-settings'
import { readPublicUrl } from '../../core/session-cookie'

export default defineNitroPlugin(() => {
  readPublicUrl(process.env.HUB_PUBLIC_URL)
  hubSessionSettings(process.env)
})
