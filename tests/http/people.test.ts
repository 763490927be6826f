// People from the hub (issue 34, Deliver 3), against the built server: the founder creates an
// operator who signs in; the operator meets 403 on /api/people; deactivation refuses the
// operator's cookie at once; the last founder stays; an invitation and a reset link each set a
// password once, a second use is refused; every refusal is { code, message }; all audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'

let hub: Hub
let founder: string

beforeAll(async () => {
  hub = await startHub()
  founder = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
})

afterAll(async () => {
  await hub?.interrupt()
})

interface PersonView {
  id: string
  email: string
  name: string
  role: string
  active: boolean
  invited: boolean
  lastSignInAt: string | null
}
interface LinkView { kind: string, url: string, expiresAt: string }

const call = (method: string, path: string, cookie: string | undefined, body?: unknown) => fetch(`${hub.url}${path}`, {
  method,
  headers: { ...(cookie ? { cookie } : {}), ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
  body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
})
const dataOf = async (response: Response) => (await response.json() as { data?: Record<string, unknown> }).data
const cookieOf = (response: Response) => response.headers.getSetCookie().map(c => c.split(';')[0]).join('; ')
const tokenOf = (link: LinkView) => link.url.split('/').pop()!

describe('people from the hub', () => {
  let operator: PersonView
  let operatorCookie: string

  it('lets the founder create an operator who signs in; the operator gets 403 on every people route', async () => {
    const created = await call('POST', '/api/people', founder, { email: 'Ops@Studio.test', name: 'Opal', role: 'operator', password: 'opal-operates-the-hub-24' })
    expect(created.status).toBe(201)
    const answer = await created.json() as { person: PersonView, link?: LinkView }
    expect(answer.person).toMatchObject({ email: 'ops@studio.test', name: 'Opal', role: 'operator', active: true, invited: false })
    expect(answer.link).toBeUndefined()
    operator = answer.person
    operatorCookie = await signIn(hub.url, 'ops@studio.test', 'opal-operates-the-hub-24')

    const listed = await (await call('GET', '/api/people', founder)).json() as { items: PersonView[] }
    expect(listed.items).toContainEqual(expect.objectContaining({ email: 'ops@studio.test', lastSignInAt: expect.any(String) }))
    for (const [method, path] of [['GET', '/api/people'], ['POST', '/api/people'], ['PATCH', `/api/people/${operator.id}`], ['PUT', `/api/people/${operator.id}/active`], ['POST', `/api/people/${operator.id}/reset-link`]] as const) {
      const response = await call(method, path, operatorCookie, method === 'PATCH' ? { role: 'founder' } : method === 'PUT' ? { active: false } : { email: 'x@studio.test', role: 'founder', password: 'a-long-enough-phrase-9' })
      expect(response.status, `${method} ${path}`).toBe(403)
      expect(await dataOf(response), `${method} ${path}`).toMatchObject({ code: 'forbidden', requiredRole: 'founder', role: 'operator' })
    }
  })

  it('refuses a taken email, a weak password, bad input and an unknown person in the one shape', async () => {
    const taken = await call('POST', '/api/people', founder, { email: 'OPS@studio.test', role: 'viewer', password: 'another-long-phrase-31' })
    expect(taken.status).toBe(409)
    expect(await dataOf(taken)).toEqual({ code: 'email_taken', message: expect.stringContaining('ops@studio.test') })
    const weak = await call('POST', '/api/people', founder, { email: 'weak@studio.test', role: 'viewer', password: 'password1234' })
    expect(weak.status).toBe(400)
    expect(await dataOf(weak)).toEqual({ code: 'weak_password', message: expect.stringMatching(/refused/) })
    const bad = await call('POST', '/api/people', founder, { email: 'not-an-email', role: 'admin' })
    expect(bad.status).toBe(400)
    expect(await dataOf(bad)).toMatchObject({ code: 'bad_input', issues: expect.arrayContaining([expect.objectContaining({ path: 'email' }), expect.objectContaining({ path: 'role' })]) })
    const unknown = await call('PATCH', '/api/people/00000000-0000-4000-8000-000000000000', founder, { name: 'x' })
    expect(unknown.status).toBe(404)
    expect(await dataOf(unknown)).toEqual({ code: 'not_found', message: expect.any(String) })
    expect((await call('PATCH', '/api/people/not-a-uuid', founder, { name: 'x' })).status).toBe(400)
    const listed = await (await call('GET', '/api/people', founder)).json() as { items: PersonView[] }
    expect(listed.items.map(p => p.email)).not.toContain('weak@studio.test')
  })

  it('keeps the last active founder: neither demoted nor deactivated (409 last_founder)', async () => {
    const listed = await (await call('GET', '/api/people', founder)).json() as { items: PersonView[] }
    const me = listed.items.find(p => p.email === FOUNDER.email)!
    for (const [method, path, body] of [['PATCH', `/api/people/${me.id}`, { role: 'operator' }], ['PUT', `/api/people/${me.id}/active`, { active: false }]] as const) {
      const response = await call(method, path, founder, body)
      expect(response.status, method).toBe(409)
      expect(await dataOf(response), method).toEqual({ code: 'last_founder', message: expect.stringMatching(/last active founder/) })
    }
    expect((await call('GET', '/api/people', founder)).status).toBe(200)
  })

  it('ends the operator\'s session at once on deactivation; reactivated, they sign in again', async () => {
    expect((await call('GET', '/api/automations', operatorCookie)).status).toBe(200)
    const off = await call('PUT', `/api/people/${operator.id}/active`, founder, { active: false })
    expect(off.status).toBe(200)
    expect(await off.json()).toMatchObject({ person: { active: false } })
    // At once: no wait for the remembered account row to expire.
    expect((await call('GET', '/api/automations', operatorCookie)).status).toBe(401)
    expect((await call('POST', '/api/auth/login', undefined, { email: 'ops@studio.test', password: 'opal-operates-the-hub-24' })).status).toBe(401)
    expect((await call('PUT', `/api/people/${operator.id}/active`, founder, { active: true })).status).toBe(200)
    // The old cookie stays refused (its session version is behind); a new sign-in works.
    expect((await call('GET', '/api/automations', operatorCookie)).status).toBe(401)
    operatorCookie = await signIn(hub.url, 'ops@studio.test', 'opal-operates-the-hub-24')
    expect((await call('GET', '/api/automations', operatorCookie)).status).toBe(200)
  })

  it('demotes at once: the operator made viewer meets 403 on a write at the next request', async () => {
    const changed = await call('PATCH', `/api/people/${operator.id}`, founder, { role: 'viewer' })
    expect(changed.status).toBe(200)
    expect(await changed.json()).toMatchObject({ person: { role: 'viewer' } })
    expect((await call('POST', '/api/clients', operatorCookie, { name: 'Demoted Co' })).status).toBe(403)
    expect((await call('PATCH', `/api/people/${operator.id}`, founder, { role: 'operator' })).status).toBe(200)
  })

  it('invites by a one-time link that sets the password once and signs the person in', async () => {
    const created = await call('POST', '/api/people', founder, { email: 'newcomer@studio.test', role: 'viewer' })
    expect(created.status).toBe(201)
    const { person, link } = await created.json() as { person: PersonView, link: LinkView }
    expect(person).toMatchObject({ invited: true, name: 'newcomer' })
    expect(link.kind).toBe('invitation')
    expect(link.url).toMatch(new RegExp(`^${hub.url}/welcome/[\\w-]{43}$`))
    const token = tokenOf(link)

    expect((await call('POST', '/api/auth/login', undefined, { email: 'newcomer@studio.test', password: 'anything-at-all-here' })).status).toBe(401)
    const page = await fetch(link.url)
    expect(page.status).toBe(200)
    await page.body?.cancel()
    const lookup = await call('POST', '/api/auth/link', undefined, { token })
    expect(lookup.status).toBe(200)
    expect(await lookup.json()).toEqual({ kind: 'invitation', email: 'newcomer@studio.test', name: 'newcomer' })

    const weak = await call('POST', '/api/auth/link/password', undefined, { token, password: 'newcomer' })
    expect(weak.status).toBe(400)
    expect(await dataOf(weak)).toMatchObject({ code: 'weak_password' })
    const used = await call('POST', '/api/auth/link/password', undefined, { token, password: 'first-day-at-the-studio-1' })
    expect(used.status).toBe(200)
    expect(await used.json()).toEqual({ signedIn: true, email: 'newcomer@studio.test' })
    const cookie = cookieOf(used)
    expect((await call('GET', '/api/automations', cookie)).status).toBe(200)

    const again = await call('POST', '/api/auth/link/password', undefined, { token, password: 'second-try-at-the-link-2' })
    expect(again.status).toBe(410)
    expect(await dataOf(again)).toEqual({ code: 'link_used', message: expect.any(String) })
    expect(await signIn(hub.url, 'newcomer@studio.test', 'first-day-at-the-studio-1')).toMatch(/=/)
    const unknown = await call('POST', '/api/auth/link', undefined, { token: 'A'.repeat(43) })
    expect(unknown.status).toBe(400)
    expect(await dataOf(unknown)).toEqual({ code: 'invalid_link', message: expect.any(String) })
    expect((await call('POST', '/api/auth/link', undefined, { token: '../../etc' })).status).toBe(400)
  })

  it('resets a password by link: the new one works once set, the old one and the old sessions no longer do, a second use is refused', async () => {
    const made = await call('POST', `/api/people/${operator.id}/reset-link`, founder)
    expect(made.status).toBe(201)
    const { link } = await made.json() as { link: LinkView }
    expect(link).toMatchObject({ kind: 'reset', url: expect.stringMatching(new RegExp(`^${hub.url}/reset/`)) })
    const token = tokenOf(link)
    const set = await call('POST', '/api/auth/link/password', undefined, { token, password: 'opal-resets-her-phrase-25' })
    expect(set.status).toBe(200)
    expect((await call('GET', '/api/automations', operatorCookie)).status).toBe(401)
    expect((await call('POST', '/api/auth/login', undefined, { email: 'ops@studio.test', password: 'opal-operates-the-hub-24' })).status).toBe(401)
    expect(await signIn(hub.url, 'ops@studio.test', 'opal-resets-her-phrase-25')).toMatch(/=/)
    const again = await call('POST', '/api/auth/link/password', undefined, { token, password: 'someone-else-tries-it-26' })
    expect(again.status).toBe(410)
    expect(await dataOf(again)).toMatchObject({ code: 'link_used' })
    expect(await signIn(hub.url, 'ops@studio.test', 'opal-resets-her-phrase-25')).toMatch(/=/)
  })

  it('audits every change, with before and after', async () => {
    const activity = await (await call('GET', '/api/activity?pageSize=100', founder)).json() as { items: Array<{ action: string, target: string | null }> }
    const actions = activity.items.filter(item => item.target === 'ops@studio.test').map(item => item.action)
    expect(actions).toEqual(expect.arrayContaining(['user_created', 'user_deactivated', 'user_reactivated', 'user_updated', 'password_link_created']))
    expect(activity.items.map(item => item.action)).toContain('password_set_by_link')
  })
})
