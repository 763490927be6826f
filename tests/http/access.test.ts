// Every /api route of the built server: 401 without a session, 403 for a viewer's writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtApiRoutes, samplePath } from '../helpers/routes'
import { FOUNDER, hubDatabase, signIn, signInEveryRole, startHub, type Hub } from '../helpers/hub'
import { requirementFor } from '#shared/access'

let hub: Hub
let cookies: Record<string, string> = {}

beforeAll(async () => {
  // Two named deploy commands a client may pick (issue 34, Deliver 1); their commands never leave the server.
  hub = await startHub({ env: { SPAWN_DEPLOY_COMMANDS: '{"static-site":"echo static {tenant}","nuxt-app":"echo nuxt {tenant}"}' } })
  cookies = await signInEveryRole(hub)
})

afterAll(async () => {
  await hub?.interrupt()
})

const errorBody = async (response: Response) => await response.json() as { data?: Record<string, unknown> }

const call = (method: string, path: string, cookie?: string, body?: unknown) => fetch(`${hub.url}${path}`, {
  method,
  headers: { ...(cookie ? { cookie } : {}), ...(method === 'GET' || method === 'HEAD' ? {} : { 'content-type': 'application/json' }) },
  body: body === undefined ? (method === 'GET' || method === 'HEAD' ? undefined : '{}') : JSON.stringify(body),
})

describe('the route table', () => {
  const routes = builtApiRoutes()

  it('is read from the built server', () => {
    expect(routes).toContainEqual({ route: '/api/automations', method: 'GET' })
    expect(routes).toContainEqual({ route: '/api/automations/:name', method: 'PATCH' })
    expect(routes.length).toBeGreaterThan(5)
  })

  it('answers 401 with a machine-readable body on every non-public route without a session', async () => {
    const checked: string[] = []
    for (const { route, method } of routes) {
      if (requirementFor(method, route).public) continue
      const response = await call(method, samplePath(route))
      expect(response.status, `${method} ${route}`).toBe(401)
      expect((await errorBody(response)).data, `${method} ${route}`).toEqual({ code: 'unauthenticated', message: expect.any(String) })
      checked.push(`${method} ${route}`)
    }
    expect(checked.length).toBeGreaterThan(4)
  })

  it('answers 403 to a viewer on every write (signing out aside)', async () => {
    // Writes about one's own session (signing out, changing one's password) aside.
    const writes = routes.filter(({ route, method }) => {
      const requirement = requirementFor(method, route)
      return !['GET', 'HEAD', 'OPTIONS'].includes(method) && !requirement.public && requirement.minRole !== 'viewer'
    })
    expect(writes.length).toBeGreaterThan(0)
    for (const { route, method } of writes) {
      const response = await call(method, samplePath(route), cookies.viewer)
      expect(response.status, `${method} ${route}`).toBe(403)
      expect((await errorBody(response)).data, `${method} ${route}`).toMatchObject({ code: 'forbidden', role: 'viewer' })
    }
  })

  it('lets a viewer read every read route (the founder-only reads aside: people)', async () => {
    const founderOnly = (route: string) => {
      const requirement = requirementFor('GET', route)
      return !requirement.public && requirement.minRole === 'founder'
    }
    const founderReads = routes.filter(r => r.method === 'GET' && founderOnly(r.route))
    expect(founderReads).toContainEqual({ route: '/api/people', method: 'GET' })
    for (const { route } of founderReads) expect((await call('GET', samplePath(route), cookies.viewer)).status, `GET ${route}`).toBe(403)
    for (const { route } of routes.filter(r => r.method === 'GET' && !founderOnly(r.route))) {
      const response = await call('GET', samplePath(route), cookies.viewer)
      expect(response.status, `GET ${route}`).not.toBe(401)
      expect(response.status, `GET ${route}`).not.toBe(403)
    }
  })
})

describe('sign-in', () => {
  it('answers 400 naming the field on a malformed body, 401 on wrong credentials', async () => {
    const malformed = await call('POST', '/api/auth/login', undefined, { email: 'x@studio.test' })
    expect(malformed.status).toBe(400)
    expect(JSON.stringify(await malformed.json())).toContain('password')
    const wrong = await call('POST', '/api/auth/login', undefined, { email: FOUNDER.email, password: 'not-it' })
    expect(wrong.status).toBe(401)
    expect((await errorBody(wrong)).data).toEqual({ code: 'invalid_credentials', message: expect.any(String) })
  })

  it('signs out', async () => {
    const cookie = await signIn(hub.url, 'viewer@studio.test', 'viewer-password-123')
    expect((await call('GET', '/api/automations', cookie)).status).toBe(200)
    const out = await fetch(`${hub.url}/api/_auth/session`, { method: 'DELETE', headers: { cookie } })
    expect(out.status).toBe(200)
    const cleared = out.headers.getSetCookie().map(c => c.split(';')[0]).join('; ')
    expect((await call('GET', '/api/automations', cleared)).status).toBe(401)
    // Signing out ends every session of the account (tests/http/hardening.test.ts): sign in again.
    expect((await call('GET', '/api/automations', cookies.viewer)).status).toBe(401)
    cookies.viewer = await signIn(hub.url, 'viewer@studio.test', 'viewer-password-123')
  })

  it('takes a demotion or a disabled account made in SQL into account within a second or so (the account row is remembered that long)', async () => {
    const cookie = await signIn(hub.url, 'operator@studio.test', 'operator-password-123')
    // An operator's write on a message that does not exist: 404 while an operator, 403 once a viewer.
    const write = () => call('POST', '/api/atlas/reply-drafts/999999999/discard', cookie, {})
    expect((await call('GET', '/api/automations', cookie)).status).toBe(200)
    const database = await hubDatabase(hub)
    const statusAfterChange = async (change: string, expected: number) => {
      await database.sql.unsafe(change)
      const deadline = Date.now() + 5000
      let status = 0
      while (Date.now() < deadline && (status = (await (expected === 401 ? call('GET', '/api/automations', cookie) : write())).status) !== expected) {
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      return status
    }
    try {
      expect(await statusAfterChange(`update hub_users set role = 'viewer' where email = 'operator@studio.test'`, 403)).toBe(403)
      expect(await statusAfterChange(`update hub_users set active = false where email = 'operator@studio.test'`, 401)).toBe(401)
    }
    finally {
      await database.sql.unsafe(`update hub_users set role = 'operator', active = true where email = 'operator@studio.test'`)
      await database.close()
    }
    // The refused cookie was cleared, which ends the account's sessions: sign in again.
    cookies.operator = await signIn(hub.url, 'operator@studio.test', 'operator-password-123')
  })
})

describe('the automation switch', () => {
  it('is founder-only, audited, and refuses a malformed body', async () => {
    const byOperator = await call('PATCH', '/api/automations/lock-guardian', cookies.operator, { active: false })
    expect(byOperator.status).toBe(403)
    expect((await errorBody(byOperator)).data).toMatchObject({ code: 'forbidden', requiredRole: 'founder' })
    const malformed = await call('PATCH', '/api/automations/lock-guardian', cookies.founder, { active: 'no' })
    expect(malformed.status).toBe(400)
    const unknown = await call('PATCH', '/api/automations/ghost', cookies.founder, { active: false })
    expect(unknown.status).toBe(404)
    expect((await errorBody(unknown)).data).toEqual({ code: 'not_found', message: expect.any(String) })

    const byFounder = await call('PATCH', '/api/automations/lock-guardian', cookies.founder, { active: false })
    expect(byFounder.status).toBe(200)
    const listed = await (await call('GET', '/api/automations', cookies.viewer)).json()
    expect(listed).toContainEqual(expect.objectContaining({ name: 'lock-guardian', active: false, updatedBy: FOUNDER.email }))
    const database = await hubDatabase(hub)
    try {
      const audit = await database.db.query.hubAudit.findMany({ where: (a, { eq }) => eq(a.action, 'automation_disabled') })
      expect(audit.map(a => [a.actor, a.target])).toEqual([[FOUNDER.email, 'lock-guardian']])
    }
    finally {
      await database.close()
    }
  })
})

describe('clients from the hub (issue 34, Deliver 1)', () => {
  it('lets an operator add and edit a client, a viewer read them, a founder deactivate one; refusals in the one shape, all audited', async () => {
    const created = await call('POST', '/api/clients', cookies.operator, { name: 'Atelier Vert', domains: ['atelier-vert.example'], repository: 'https://forge.example/vert/site.git', preprodUrl: 'https://preprod.atelier-vert.example', ai: { provider: 'mistral' } })
    expect(created.status).toBe(201)
    const { client } = await created.json() as { client: { id: string, slug: string } }
    expect(client.slug).toBe('atelier-vert')
    expect((await call('POST', '/api/clients', cookies.viewer, { name: 'Viewer Co' })).status).toBe(403)
    const listed = await (await call('GET', '/api/clients', cookies.viewer)).json() as { items: Array<{ slug: string, active: boolean }> }
    expect(listed.items).toContainEqual(expect.objectContaining({ slug: 'atelier-vert', active: true }))

    const taken = await call('POST', '/api/clients', cookies.operator, { name: 'Copie', domains: ['ATELIER-VERT.example'] })
    expect(taken.status).toBe(409)
    expect((await errorBody(taken)).data).toMatchObject({ code: 'domain_taken', domain: 'atelier-vert.example', message: expect.stringMatching(/already belongs to Atelier Vert/) })
    const bad = await call('POST', '/api/clients', cookies.operator, { name: 'Mauvais', domains: ['pas un domaine'], repository: '--upload-pack=x' })
    expect(bad.status).toBe(400)
    expect((await errorBody(bad)).data).toMatchObject({ code: 'bad_input', issues: expect.arrayContaining([expect.objectContaining({ path: 'domains.0' }), expect.objectContaining({ path: 'repository' })]) })

    expect((await call('PATCH', `/api/clients/${client.id}`, cookies.operator, { preprodUrl: null })).status).toBe(200)
    expect((await call('PUT', `/api/clients/${client.id}/active`, cookies.operator, { active: false })).status).toBe(403)
    const off = await call('PUT', `/api/clients/${client.id}/active`, cookies.founder, { active: false })
    expect(off.status).toBe(200)
    expect(await off.json()).toMatchObject({ client: { active: false, preprodUrl: null } })
    expect((await call('PATCH', '/api/clients/not-a-uuid', cookies.operator, { name: 'x' })).status).toBe(400)

    const activity = await (await call('GET', '/api/activity?pageSize=100', cookies.founder)).json() as { items: Array<{ action: string, target: string | null }> }
    const actions = activity.items.filter(item => item.target === 'atelier-vert').map(item => item.action)
    expect(actions).toEqual(expect.arrayContaining(['client_created', 'client_updated', 'client_deactivated']))
  })

  it('offers the deploy names the environment defines (never the commands), keeps a client\'s branch and deploy name, refuses any other', async () => {
    const choices = await call('GET', '/api/clients/deploy-commands', cookies.viewer)
    expect(choices.status).toBe(200)
    const body = await choices.text()
    expect(JSON.parse(body)).toEqual({ names: ['nuxt-app', 'static-site'], hasDefault: false })
    expect(body).not.toContain('echo')
    const created = await call('POST', '/api/clients', cookies.operator, { name: 'Atelier Bleu', domains: ['atelier-bleu.example'], branch: 'preprod', deploy: 'static-site' })
    expect(created.status).toBe(201)
    const { client } = await created.json() as { client: { id: string, branch: string, deploy: string } }
    expect(client).toMatchObject({ branch: 'preprod', deploy: 'static-site' })
    const unknown = await call('PATCH', `/api/clients/${client.id}`, cookies.operator, { deploy: 'wipe-disk' })
    expect(unknown.status).toBe(400)
    expect((await errorBody(unknown)).data).toMatchObject({ code: 'unknown_deploy', known: ['nuxt-app', 'static-site'], message: expect.stringContaining('"wipe-disk"') })
    const command = await call('PATCH', `/api/clients/${client.id}`, cookies.operator, { deploy: 'rm -rf /', branch: '--upload-pack=x' })
    expect(command.status).toBe(400)
    expect((await errorBody(command)).data).toMatchObject({ code: 'bad_input', issues: expect.arrayContaining([expect.objectContaining({ path: 'deploy' }), expect.objectContaining({ path: 'branch' })]) })
    const changed = await call('PATCH', `/api/clients/${client.id}`, cookies.operator, { deploy: 'nuxt-app', branch: null })
    expect(await changed.json()).toMatchObject({ client: { deploy: 'nuxt-app', branch: null } })
  })
})
