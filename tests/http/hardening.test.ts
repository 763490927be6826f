// The hub as an abuser meets it: password guessing, stolen cookies after sign-out, huge
// bodies, bad characters in every parameter of every route, foreign pages posting forms.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtApiRoutes, samplePath } from '../helpers/routes'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'
import { runTs } from '../helpers/processes'

let hub: Hub
let founder: string

beforeAll(async () => {
  hub = await startHub()
  for (const who of ['target', 'bystander']) {
    const created = await runTs('scripts/user-create.ts', ['--email', `${who}@studio.test`, '--role', 'viewer', '--password-stdin'], {
      env: { DATA_DIR: hub.dataDir }, input: `${who}-password-123`,
    })
    expect(created.code, created.output).toBe(0)
  }
  founder = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
})

afterAll(async () => {
  await hub?.interrupt()
})

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => fetch(`${hub.url}${path}`, {
  method, headers: { 'content-type': 'application/json', cookie: founder, ...headers }, body: JSON.stringify(body),
})
const login = (email: string, password: string) => fetch(`${hub.url}/api/auth/login`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
})
const data = async (response: Response) => (await response.json() as { data?: Record<string, unknown> }).data

/** A raw HTTP request: headers and only the first part of a body, to see when the server answers. */
function rawRequest(head: string, firstBodyPart: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(hub.port, '127.0.0.1', () => socket.write(head + firstBodyPart))
    let answer = ''
    socket.on('data', (chunk) => {
      answer += chunk.toString()
      if (answer.includes('\r\n\r\n')) {
        socket.destroy()
        resolve(answer)
      }
    })
    socket.on('error', reject)
    setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer; got: ${answer}`))
    }, 10_000)
  })
}

describe('sign-in under attack', () => {
  it('refuses the 11th wrong password for one account, while another account signs in at normal speed', async () => {
    const normal = Date.now()
    await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    const baseline = Date.now() - normal
    for (let i = 0; i < 10; i++) expect((await login('target@studio.test', `wrong-${i}`)).status).toBe(401)
    // A flood on the target while the bystander signs in.
    const flood = Promise.all([...Array(10)].map(() => login('target@studio.test', 'wrong-again')))
    const started = Date.now()
    await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    expect(Date.now() - started).toBeLessThan(baseline * 3 + 1500)
    for (const response of await flood) expect(response.status).toBe(429)
    const eleventh = await login('target@studio.test', 'target-password-123')
    expect(eleventh.status).toBe(429)
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await data(eleventh)).toMatchObject({ code: 'too_many_attempts' })
  })

  it('answers an unknown account and a wrong password alike', async () => {
    const unknown = await login('nobody@studio.test', 'some-password-1')
    expect(unknown.status).toBe(401)
    expect(await data(unknown)).toEqual({ code: 'invalid_credentials' })
  })

  it('revokes a session on sign-out: the copied cookie gets 401', async () => {
    const cookie = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    expect((await fetch(`${hub.url}/api/automations`, { headers: { cookie } })).status).toBe(200)
    expect((await fetch(`${hub.url}/api/_auth/session`, { method: 'DELETE', headers: { cookie } })).status).toBe(200)
    const replayed = await fetch(`${hub.url}/api/automations`, { headers: { cookie } })
    expect(replayed.status).toBe(401)
    expect(await data(replayed)).toEqual({ code: 'unauthenticated' })
  })

  it('revokes the other sessions on a password change, and refuses a weak new password', async () => {
    const other = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    const mine = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    const weak = await fetch(`${hub.url}/api/auth/password`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'cookie': mine }, body: JSON.stringify({ currentPassword: 'bystander-password-123', newPassword: 'aaaaaaaaaaaaaaa' }),
    })
    expect(weak.status).toBe(400)
    expect(await data(weak)).toEqual({ code: 'weak_password' })
    const changed = await fetch(`${hub.url}/api/auth/password`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'cookie': mine }, body: JSON.stringify({ currentPassword: 'bystander-password-123', newPassword: 'a fresh bystander phrase' }),
    })
    expect(changed.status).toBe(200)
    const renewed = changed.headers.getSetCookie().map(c => c.split(';')[0]).join('; ')
    expect((await fetch(`${hub.url}/api/automations`, { headers: { cookie: other } })).status).toBe(401)
    expect((await fetch(`${hub.url}/api/automations`, { headers: { cookie: renewed } })).status).toBe(200)
    await signIn(hub.url, 'bystander@studio.test', 'a fresh bystander phrase')
  })
})

describe('request bounds', () => {
  it('answers 413 to a 2 MB body before reading it (declared length and streamed)', async () => {
    const declared = await rawRequest(
      `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`,
      '{"email":"',
    )
    expect(declared).toMatch(/^HTTP\/1\.1 413/)
    const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`
    const streamed = await rawRequest(
      `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunk.repeat(17),
    )
    expect(streamed).toMatch(/^HTTP\/1\.1 413/)
    // The hub is fine afterwards.
    expect((await fetch(`${hub.url}/api/health`)).status).toBe(200)
  })

  it('answers 400 naming the field to NUL and lone surrogates in every parameter of every route', async () => {
    const routes = builtApiRoutes()
    const bad = [['%00', 'NUL'], ['%ED%A0%80', 'surrogate']] as const
    let checked = 0
    for (const { route, method } of routes) {
      for (const [escape] of bad) {
        if (route.includes(':')) {
          const path = route.replace(/:[^/]+/g, `x${escape}y`).replace(/\*\*?/g, 'x')
          const response = await fetch(`${hub.url}${path}`, { method, headers: { cookie: founder, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) }, body: method === 'GET' ? undefined : '{}' })
          expect(response.status, `${method} ${path}`).toBe(400)
          expect(String((await data(response))?.field), `${method} ${path}`).toMatch(/^path segment/)
          checked++
        }
        if (method === 'GET') {
          const response = await fetch(`${hub.url}${samplePath(route)}?q=x${escape}y`, { headers: { cookie: founder } })
          expect(response.status, `${method} ${route} ?q`).toBe(400)
          expect((await data(response))?.field).toBe('query.q')
          checked++
        }
      }
      if (method !== 'GET') {
        for (const text of ['x\u0000y', '\uD800', 'ok\uDFFFok']) {
          // JSON.stringify writes lone surrogates as \u escapes: the server sees real ones.
          const response = await json(method, samplePath(route), { email: 'a@b.c', password: 'p', nested: { list: ['fine', text] } })
          expect(response.status, `${method} ${route} body`).toBe(400)
          expect((await data(response))?.field).toBe('body.nested.list[1]')
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(routes.length)
    expect(hub.output()).not.toMatch(/Failed query|params:/)
  })
})

describe('headers and origin', () => {
  const HEADERS = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  }

  it('sends the security headers, and no x-powered-by, on every page and API response', async () => {
    const paths = ['/login', '/hub', '/no-such-page', '/api/health', '/api/no-such-route', ...builtApiRoutes().filter(r => r.method === 'GET').map(r => samplePath(r.route))]
    for (const path of paths) {
      for (const cookie of [undefined, founder]) {
        const response = await fetch(`${hub.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' })
        for (const [name, value] of Object.entries(HEADERS)) expect(response.headers.get(name), `${path} ${name}`).toBe(value)
        expect(response.headers.get('content-security-policy'), path).toContain('frame-ancestors \'none\'')
        expect(response.headers.get('x-powered-by'), path).toBeNull()
        // Event streams never end: the headers are all this test needs.
        await response.body?.cancel()
      }
    }
    const page = await fetch(`${hub.url}/login`)
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+/)
  })

  it('refuses a form-encoded change and a foreign Origin with 403', async () => {
    const form = await fetch(`${hub.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=${encodeURIComponent(FOUNDER.email)}&password=${encodeURIComponent(FOUNDER.password)}`,
    })
    expect(form.status).toBe(403)
    expect(await data(form)).toMatchObject({ code: 'json_required' })
    const foreign = await json('PATCH', '/api/automations/lock-guardian', { active: false }, { origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(await data(foreign)).toMatchObject({ code: 'foreign_origin' })
    const own = await json('PATCH', '/api/automations/lock-guardian', { active: true }, { origin: hub.url })
    expect(own.status).toBe(200)
  })
})
