import { readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ACCESS, requirementFor, roleAllows, roleMayCall, type Route } from '#shared/access'
import { routeFromApiFile } from '#server/core/api-routes'

const ROOT = resolve(import.meta.dirname, '../..')
/** Routes a module adds without a file of ours: nuxt-auth-utils' sign-out. */
const MODULE_ROUTES = ['DELETE /api/_auth/session']
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Every handler file under an `api/` folder of the app and of every layer, as Nitro routes it. */
function apiRoutes(): string[] {
  const apiDirs = [join(ROOT, 'server/api'), ...readdirSync(join(ROOT, 'layers')).map(layer => join(ROOT, 'layers', layer, 'server/api'))]
  const walk = (dir: string): string[] => {
    let names: string[]
    try {
      names = readdirSync(dir, { withFileTypes: true }).map(entry => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    }
    catch {
      return []
    }
    return names.flatMap(name => (name.endsWith('/') ? walk(join(dir, name)) : /\.[cm]?[jt]s$/.test(name) ? [join(dir, name)] : []))
  }
  return apiDirs.flatMap(dir => walk(dir).map((file) => {
    const { method, route } = routeFromApiFile(relative(dir, file))
    return `${method} ${route}`
  }))
}

describe('authorisation policy', () => {
  it('leaves only sign-in, the one-time link routes, the health probe and the signed webhooks public', () => {
    expect(requirementFor('POST', '/api/hooks/AbCdEfGhIjKlMnOpQrStUvWxYz012345')).toEqual({ public: true })
    expect(requirementFor('GET', '/api/hooks/AbCdEfGhIjKlMnOpQrStUvWxYz012345')).toEqual({ public: false, minRole: 'viewer' })
    expect(requirementFor('POST', '/api/hooks/a/b')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('POST', '/api/auth/login')).toEqual({ public: true })
    expect(requirementFor('GET', '/api/health')).toEqual({ public: true })
    expect(requirementFor('GET', '/api/health?x=1')).toEqual({ public: true })
    expect(requirementFor('GET', '/api/auth/login')).toEqual({ public: false, minRole: 'viewer' })
    expect(requirementFor('POST', '/api/health')).toEqual({ public: false, minRole: 'operator' })
  })

  it('lets any role read, operators write, founders switch automations', () => {
    expect(requirementFor('GET', '/api/automations')).toEqual({ public: false, minRole: 'viewer' })
    expect(requirementFor('POST', '/api/anything')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('DELETE', '/api/anything/1')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('PATCH', '/api/automations/lock-guardian')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('POST', '/api/automations/learning-suggest/run')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('DELETE', '/api/_auth/session')).toEqual({ public: false, minRole: 'viewer' })
  })

  it('keeps the user model founder-only to change, the other memory edits to operators', () => {
    expect(requirementFor('PUT', '/api/memory/user-model/founder@studio.test')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('GET', '/api/memory/user-model')).toEqual({ public: false, minRole: 'viewer' })
    expect(requirementFor('PUT', '/api/memory/reflex')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('PUT', '/api/memory/briefs/acme')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('POST', '/api/atlas/messages/42/lessons')).toEqual({ public: false, minRole: 'operator' })
  })

  it('lets anyone write their own instructions and model choice, only founders set the models of a surface', () => {
    for (const [method, path] of [['POST', '/api/agents/instructions'], ['PATCH', '/api/agents/instructions/abc'], ['POST', '/api/agents/instructions/abc/versions'], ['POST', '/api/agents/instructions/abc/versions/3/restore'], ['POST', '/api/agents/instructions/abc/proposals/def'], ['PUT', '/api/agents/model-choice']] as const) {
      expect(requirementFor(method, path), `${method} ${path}`).toEqual({ public: false, minRole: 'viewer' })
    }
    expect(requirementFor('DELETE', '/api/agents/instructions/abc')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('PUT', '/api/agents/models/hub_chat')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('GET', '/api/agents/models')).toEqual({ public: false, minRole: 'viewer' })
  })

  it('lets a viewer act on a custom agent shared with them (the routes check the level), only founders set the studio policy', () => {
    for (const [method, path] of [['POST', '/api/agents/custom/bot/runs'], ['PUT', '/api/agents/custom/bot'], ['POST', '/api/agents/custom/bot/kill'], ['POST', '/api/agents/custom/bot/versions/2/restore'], ['POST', '/api/agents/custom/bot/shares'], ['DELETE', '/api/agents/custom/bot/shares']] as const) {
      expect(requirementFor(method, path), `${method} ${path}`).toEqual({ public: false, minRole: 'viewer' })
    }
    expect(requirementFor('POST', '/api/agents/custom')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('POST', '/api/agents/custom/bot/duplicate')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('POST', '/api/agents/custom-drafts/abc/save')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('PUT', '/api/agents/studio-policy')).toEqual({ public: false, minRole: 'founder' })
  })

  it('keeps people founder-only, reads included, and one-time links public (issue 34, Deliver 3)', () => {
    expect(requirementFor('GET', '/api/people')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('POST', '/api/people')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('PATCH', '/api/people/0b7c')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('PUT', '/api/people/0b7c/active')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('POST', '/api/people/0b7c/reset-link')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('POST', '/api/auth/link')).toEqual({ public: true })
    expect(requirementFor('POST', '/api/auth/link/password')).toEqual({ public: true })
    expect(requirementFor('GET', '/api/auth/link')).toEqual({ public: false, minRole: 'viewer' })
  })

  it('keeps budgets and the included models founder-only to change, the usage and its CSVs readable by anyone', () => {
    expect(requirementFor('PUT', '/api/usage/budgets')).toEqual({ public: false, minRole: 'founder' })
    expect(requirementFor('PUT', '/api/usage/included')).toEqual({ public: false, minRole: 'founder' })
    for (const path of ['/api/usage', '/api/usage/runs.csv', '/api/usage/ledger.csv']) expect(requirementFor('GET', path)).toEqual({ public: false, minRole: 'viewer' })
  })

  it('ranks founder above operator above viewer', () => {
    expect(roleAllows('founder', 'operator')).toBe(true)
    expect(roleAllows('operator', 'operator')).toBe(true)
    expect(roleAllows('viewer', 'operator')).toBe(false)
    expect(roleAllows('operator', 'founder')).toBe(false)
  })

  it('names every route that writes, and only routes that exist (a new write route without its entry fails here)', () => {
    const routes = apiRoutes()
    expect(routes.length).toBeGreaterThan(150)
    expect(routes).toContain('POST /api/agents/custom/:codename/kill')
    const writes = routes.filter(route => !READS.has(route.split(' ')[0]!))
    expect(writes.filter(route => !(route in ACCESS))).toEqual([])
    const known = new Set([...routes, ...MODULE_ROUTES])
    expect(Object.keys(ACCESS).filter(route => !known.has(route))).toEqual([])
  })

  it('decides each route of the table by its own entry, a static segment winning over a parameter', () => {
    for (const [route, access] of Object.entries(ACCESS)) {
      const [method, pattern] = route.split(' ') as [string, string]
      const sample = pattern.replace(/:[^/]+/g, '7')
      expect(requirementFor(method, sample), route).toEqual(access === 'public' ? { public: true } : { public: false, minRole: access })
    }
    expect(requirementFor('POST', '/api/skills/import')).toEqual({ public: false, minRole: 'operator' })
    expect(requirementFor('PUT', '/api/skills/12/enablement')).toEqual({ public: false, minRole: 'viewer' })
  })

  it('answers a page the same as the server: roleMayCall is requirementFor and roleAllows', () => {
    for (const route of Object.keys(ACCESS) as Route[]) {
      const [method, pattern] = route.split(' ') as [string, string]
      const requirement = requirementFor(method, pattern.replace(/:[^/]+/g, 'x'))
      for (const role of ['viewer', 'operator', 'founder'] as const) {
        expect(roleMayCall(role, route), `${role} ${route}`).toBe(requirement.public || roleAllows(role, requirement.minRole))
      }
      expect(roleMayCall(undefined, route), route).toBe(requirement.public)
    }
    expect(roleMayCall('viewer', 'POST /api/skills')).toBe(false)
    expect(roleMayCall('viewer', 'POST /api/agents/custom/:codename/kill')).toBe(true)
    expect(roleMayCall('operator', 'PUT /api/clients/:id/active')).toBe(false)
  })
})
