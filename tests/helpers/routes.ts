// The built Nitro server's own route table (.output/server/chunks/nitro/nitro.mjs), so
// route tests cover every route, including the ones added after they were written.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './processes'

export interface ApiRoute { route: string, method: string }

export function builtApiRoutes(): ApiRoute[] {
  const source = readFileSync(join(ROOT, '.output/server/chunks/nitro/nitro.mjs'), 'utf8')
  const table = /const handlers = \[([\s\S]*?)\n\];/.exec(source)?.[1]
  if (!table) throw new Error('no handler table in the built server: run nuxt build')
  const routes: ApiRoute[] = []
  for (const match of table.matchAll(/route: '([^']*)',[^}]*method: (?:"(\w+)"|undefined)/g)) {
    const route = match[1]!
    if (!route.startsWith('/api/')) continue
    const methods = match[2] ? [match[2].toUpperCase()] : ['GET', 'POST']
    for (const method of methods) routes.push({ route, method })
  }
  return routes
}

/** A concrete path for a route pattern: parameters and wildcards filled in. */
export function samplePath(route: string): string {
  return route.replace(/:[^/]+/g, 'lock-guardian').replace(/\*\*?/g, 'x')
}
