// The hub's API routes as Nitro scanned them (server/api of the app and of every layer), handed
// to the server as the virtual module `#api-routes`: the OpenAPI document (GET /api/openapi.json)
// lists what really answers, never a hand-kept list. The virtual module is rendered lazily, so a
// dev rescan (a route added or removed) is seen on the next bundle.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { addTypeTemplate, defineNuxtModule } from '@nuxt/kit'
import { routeComment, type ScannedRoute } from '../server/core/api-routes'

/** What this module reads of a handler Nitro scanned. */
interface ScannedHandler { handler: string, route?: string, method?: string, middleware?: boolean }

export default defineNuxtModule({
  meta: { name: 'api-routes' },
  setup(_options, nuxt) {
    // Read when the bundle asks, so a dev rescan is seen.
    let scannedHandlers: (() => ScannedHandler[]) | undefined
    nuxt.hook('nitro:init', (nitro) => {
      scannedHandlers = () => nitro.scannedHandlers as ScannedHandler[]
    })
    nuxt.hook('nitro:config', (config) => {
      config.virtual ||= {}
      config.virtual['#api-routes'] = () => {
        if (!scannedHandlers) throw new Error('api-routes: Nitro was not initialised before its routes were bundled')
        const routes: ScannedRoute[] = scannedHandlers()
          .filter(handler => !handler.middleware && handler.route?.startsWith('/api/'))
          .map(handler => ({
            method: (handler.method ?? 'get').toUpperCase(),
            route: handler.route!,
            file: relative(nuxt.options.rootDir, handler.handler),
            comment: routeComment(readFileSync(handler.handler, 'utf8')),
          }))
        const { version } = JSON.parse(readFileSync(`${nuxt.options.rootDir}/package.json`, 'utf8')) as { version: string }
        return `export default ${JSON.stringify(routes)}\nexport const version = ${JSON.stringify(version)}`
      }
    })
    addTypeTemplate({
      filename: 'types/api-routes.d.ts',
      getContents: () => `declare module '#api-routes' {\n  const routes: import('${relative(`${nuxt.options.buildDir}/types`, `${nuxt.options.rootDir}/server/core/api-routes`)}').ScannedRoute[]\n  export default routes\n  export const version: string\n}\n`,
    }, { nitro: true, nuxt: true })
  },
})
