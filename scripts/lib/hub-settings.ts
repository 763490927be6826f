// The hub's own settings, checked by npm start before anything is opened or written (the hub
// checks them again at its own start: layers/base/server/plugins/config-check.ts).
import { hubSessionSettings } from '#db/session-settings'
import { readPublicUrl } from '#layers/base/core/session-cookie'
import { UsageError } from './cli'

export function checkHubSettings(env: NodeJS.ProcessEnv): void {
  for (const [name, check, fix] of [
    ['HUB_PUBLIC_URL', () => readPublicUrl(env.HUB_PUBLIC_URL), 'Set HUB_PUBLIC_URL to the address people open, such as https://hub.studio.example, or leave it empty.'],
    ['HUB_STATEMENT_TIMEOUT_MS', () => hubSessionSettings(env), 'Set HUB_STATEMENT_TIMEOUT_MS to a whole number of milliseconds (30000 by default, 0 for none), or leave it empty.'],
  ] as const) {
    try {
      check()
    }
    catch (error) {
      throw new UsageError(`${name} is wrong: ${(error as Error).message}`, fix, 1)
    }
  }
}
