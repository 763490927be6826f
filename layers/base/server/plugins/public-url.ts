// HUB_PUBLIC_URL is checked once at start: a wrong value stops the hub with its reason rather
// than failing every sign-in (layers/base/core/session-cookie.ts).
import { readPublicUrl } from '../../core/session-cookie'

export default defineNitroPlugin(() => {
  readPublicUrl(process.env.HUB_PUBLIC_URL)
})
