// The hub as an abuser meets it: password guessing, stolen cookies after sign-out, huge
// bodies, bad characters in every parameter of every route, foreign pages posting forms.
import { request } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtApiRoutes, samplePath } from '../helpers/routes'
import { FOUNDER, signIn, startHub, type Hub } from '../helpers/hub'
import { runTs } from '../helpers/processes'

let hub: Hub
let founder: string

beforeAll(async () => {
  hub = await startHub()
  for (const who of ['target', 'bystander', 'owner', 'changer', 'poster']) {
    const created = await runTs('scripts/user-create.ts', ['--email', `${who}@studio.test`, '--role', 'viewer', '--password-stdin'], {
      env: { DATA_DIR: hub.dataDir }, input: `${who}-password-123`,
    })
    expect(created.code, created.output).toBe(0)
  }
  // The route walker signs out at its end, which ends every session of its account: its own.
  const walker = await runTs('scripts/user-create.ts', ['--email', 'walker@studio.test', '--role', 'founder', '--password-stdin'], { env: { DATA_DIR: hub.dataDir }, input: 'walker-password-123' })
  expect(walker.code, walker.output).toBe(0)
  founder = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
})

afterAll(async () => {
  await hub?.interrupt()
})

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => fetch(`${hub.url}${path}`, {
  method, headers: { 'content-type': 'application/json', 'cookie': founder, ...headers }, body: JSON.stringify(body),
})
const login = (email: string, password: string) => fetch(`${hub.url}/api/auth/login`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
})
/** A sign-in from another loopback address (127.0.0.x): the hub sees it as another client. */
function loginFrom(localAddress: string, email: string, password: string): Promise<{ status: number, retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password })
    const sent = request({ host: '127.0.0.1', port: hub.port, path: '/api/auth/login', method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.resume()
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string | undefined }))
    })
    sent.on('error', reject)
    sent.end(body)
  })
}
const activity = async (action: string) => (await (await fetch(`${hub.url}/api/activity?action=${action}&pageSize=100`, { headers: { cookie: founder } })).json() as { items: Array<{ target: string | null, details: Record<string, unknown> }> }).items
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
  // Whether the bystander is slowed is a speed question for the bench, not a timed test: here the
  // limiter must refuse the target's flood and still let the bystander in while it runs.
  it('refuses the 11th wrong password for one account, while another account signs in during the flood', async () => {
    for (let i = 0; i < 10; i++) expect((await login('target@studio.test', `wrong-${i}`)).status).toBe(401)
    // A flood on the target while the bystander signs in.
    const flood = Promise.all([...Array(10)].map(() => login('target@studio.test', 'wrong-again')))
    expect(await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')).toMatch(/=/)
    for (const response of await flood) expect(response.status).toBe(429)
    const eleventh = await login('target@studio.test', 'target-password-123')
    expect(eleventh.status).toBe(429)
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await data(eleventh)).toMatchObject({ code: 'too_many_attempts' })
  })

  it('lets the owner sign in from an address of theirs while a stranger floods the account from another', async () => {
    expect((await loginFrom('127.0.0.3', 'owner@studio.test', 'owner-password-123')).status).toBe(200)
    const flood = []
    for (let i = 0; i < 16; i++) flood.push((await loginFrom('127.0.0.2', 'owner@studio.test', `guess-${i}`)).status)
    expect(flood.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(flood.slice(10)).toEqual(Array(6).fill(429))
    // The owner's own address is not the stranger's: the right password opens at once.
    expect((await loginFrom('127.0.0.3', 'owner@studio.test', 'owner-password-123')).status).toBe(200)
    // An address the account never signed in from waits, as the whole account is under attack.
    const fresh = await loginFrom('127.0.0.4', 'owner@studio.test', 'owner-password-123')
    expect(fresh.status).toBe(429)
    expect(Number(fresh.retryAfter)).toBeGreaterThan(0)
    // Each refused try is counted; the audit says it once a minute, not once a try.
    const refused = (await activity('sign_in_refused')).filter(row => row.target === 'owner@studio.test')
    expect(refused.length).toBeGreaterThanOrEqual(2)
    expect(refused.length).toBeLessThanOrEqual(4)
    expect(refused.map(row => row.details.address).sort()).toEqual(expect.arrayContaining(['127.0.0.2', '127.0.0.4']))
    // The founder sees the whole flood, counted per account and address (the health page's card).
    const report = await (await fetch(`${hub.url}/api/health/sign-ins?hours=1`, { headers: { cookie: founder } })).json() as { pairs: Array<{ email: string, address: string, failures: number, refused: number }> }
    expect(report.pairs).toEqual(expect.arrayContaining([
      expect.objectContaining({ email: 'owner@studio.test', address: '127.0.0.2', failures: 10, refused: 6 }),
      expect.objectContaining({ email: 'owner@studio.test', address: '127.0.0.4', failures: 0, refused: 1 }),
    ]))
    const viewer = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    expect((await fetch(`${hub.url}/api/health/sign-ins`, { headers: { cookie: viewer } })).status).toBe(403)
  })

  it('throttles guesses at the current password on the password change, and audits them', async () => {
    const cookie = await signIn(hub.url, 'changer@studio.test', 'changer-password-123')
    const change = (currentPassword: string) => fetch(`${hub.url}/api/auth/password`, {
      method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ currentPassword, newPassword: 'a long enough new phrase' }),
    })
    for (let i = 0; i < 10; i++) expect((await change(`guess-${i}`)).status).toBe(400)
    const limited = await change('changer-password-123')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await data(limited)).toMatchObject({ code: 'too_many_attempts' })
    expect((await activity('password_change_failed')).filter(row => row.details.reason === 'wrong_current_password').length).toBeGreaterThanOrEqual(10)
    expect((await activity('password_change_refused')).map(row => row.target)).toContain('changer@studio.test')
  })

  it('signs in a login form posted without script, and sends a refusal back to the form by its code', async () => {
    const post = (body: string, headers: Record<string, string> = {}, path = '/login') => fetch(`${hub.url}${path}`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body,
    })
    const ok = await post('email=poster%40studio.test&password=poster-password-123', {}, '/login?redirect=%2Fhub%2Fatlas')
    expect(ok.status).toBe(303)
    expect(ok.headers.get('location')).toBe('/hub/atlas')
    const cookie = ok.headers.get('set-cookie')!.split(';')[0]!
    expect((await fetch(`${hub.url}/api/notifications`, { headers: { cookie } })).status).toBe(200)
    const wrong = await post('email=poster%40studio.test&password=nope', {}, '/login?redirect=https%3A%2F%2Fevil.example')
    expect(wrong.status).toBe(303)
    expect(wrong.headers.get('location')).toBe('/login?error=invalid_credentials')
    expect(wrong.headers.get('set-cookie')).toBeNull()
    const foreign = await post('email=poster%40studio.test&password=poster-password-123', { origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    // Only this path takes a form: the API's sign-in stays JSON-only.
    expect((await post('email=poster%40studio.test&password=poster-password-123', {}, '/api/auth/login')).status).toBe(403)
  })

  it('answers an unknown account and a wrong password alike', async () => {
    const unknown = await login('nobody@studio.test', 'some-password-1')
    expect(unknown.status).toBe(401)
    expect(await data(unknown)).toEqual({ code: 'invalid_credentials', message: expect.any(String) })
  })

  it('revokes a session on sign-out: the copied cookie gets 401', async () => {
    const cookie = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    expect((await fetch(`${hub.url}/api/automations`, { headers: { cookie } })).status).toBe(200)
    expect((await fetch(`${hub.url}/api/_auth/session`, { method: 'DELETE', headers: { cookie } })).status).toBe(200)
    const replayed = await fetch(`${hub.url}/api/automations`, { headers: { cookie } })
    expect(replayed.status).toBe(401)
    expect(await data(replayed)).toEqual({ code: 'unauthenticated', message: expect.any(String) })
  })

  it('revokes the other sessions on a password change, and refuses a weak new password', async () => {
    const other = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    const mine = await signIn(hub.url, 'bystander@studio.test', 'bystander-password-123')
    const weak = await fetch(`${hub.url}/api/auth/password`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'cookie': mine }, body: JSON.stringify({ currentPassword: 'bystander-password-123', newPassword: 'aaaaaaaaaaaaaaa' }),
    })
    expect(weak.status).toBe(400)
    expect(await data(weak)).toEqual({ code: 'weak_password', message: expect.any(String) })
    const changed = await fetch(`${hub.url}/api/auth/password`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'cookie': mine }, body: JSON.stringify({ currentPassword: 'bystander-password-123', newPassword: 'a fresh bystander phrase' }),
    })
    expect(changed.status).toBe(200)
    const renewed = changed.headers.getSetCookie().map(c => c.split(';')[0]).join('; ')
    expect((await fetch(`${hub.url}/api/automations`, { headers: { cookie: other } })).status).toBe(401)
    expect((await fetch(`${hub.url}/api/automations`, { headers: { cookie: renewed } })).status).toBe(200)
    // A poll that left with the old cookie while the change was under way is refused without a
    // Set-Cookie: clearing would erase the renewed cookie in that same browser.
    const inFlight = await fetch(`${hub.url}/api/notifications`, { headers: { cookie: mine } })
    expect(inFlight.status).toBe(401)
    expect(inFlight.headers.getSetCookie()).toEqual([])
    await signIn(hub.url, 'bystander@studio.test', 'a fresh bystander phrase')
  })
})

describe('request bounds', () => {
  it('answers 400 too_deep to a body nesting 5,000 levels, before sign-in, without a stack', async () => {
    const deep = await fetch(`${hub.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `${'['.repeat(5000)}${']'.repeat(5000)}` })
    expect(deep.status).toBe(400)
    expect(await data(deep)).toMatchObject({ code: 'too_deep', field: 'body' })
    const nested = await fetch(`${hub.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"email":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)},"password":"x"}` })
    expect(nested.status).toBe(400)
  })

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

describe('one shape for every refusal', () => {
  const isShaped = (body: { message?: unknown, data?: Record<string, unknown> }, what: string) => {
    expect(body.data, what).toMatchObject({ code: expect.stringMatching(/^[a-z][a-z0-9_]*$/), message: expect.any(String) })
    const issues = body.data!.issues
    if (issues !== undefined) {
      expect(Array.isArray(issues), what).toBe(true)
      for (const issue of issues as unknown[]) expect(issue, what).toMatchObject({ path: expect.any(String), message: expect.any(String) })
    }
    // Never zod's issues serialised into the message.
    expect(String(body.message), what).not.toMatch(/^\s*\[/)
  }

  it('answers a wrong body or query on every route with a 4xx of one shape, never a 500', async () => {
    const walker = await signIn(hub.url, 'walker@studio.test', 'walker-password-123')
    // Signing out ends the walker's session: that route goes last.
    const signOut = (r: { route: string, method: string }) => Number(r.method === 'DELETE' && r.route === '/api/_auth/session')
    const routes = builtApiRoutes().sort((a, b) => signOut(a) - signOut(b))
    let refused = 0
    let tried = 0
    for (const { route, method } of routes) {
      const path = samplePath(route)
      const attempts = method === 'GET'
        ? [{ url: `${path}?page=x&pageSize=-1&limit=abc&from=not-a-date&status=%3Cnone%3E`, body: undefined }]
        : [{ url: path, body: '[1, "two", null]' }, { url: path, body: '{"cut": ' }]
      for (const attempt of attempts) {
        const what = `${method} ${attempt.url} ${attempt.body ?? ''}`
        const response = await fetch(`${hub.url}${attempt.url}`, { method, headers: { cookie: walker, ...(attempt.body ? { 'content-type': 'application/json' } : {}) }, body: attempt.body })
        tried++
        expect(response.status, what).toBeLessThan(500)
        if (response.status >= 400) {
          isShaped(await response.json() as { message?: unknown, data?: Record<string, unknown> }, what)
          refused++
        }
        else await response.body?.cancel()
      }
    }
    // Most routes read a body or a query: a wrong one is refused, not acted on.
    expect(refused).toBeGreaterThan(tried / 2)
    expect(hub.output()).not.toMatch(/Failed query|params:/)
  })

  it('answers before sign-in, a wrong method and an unknown route in the same shape', async () => {
    for (const response of [
      await login('x', ''),
      await fetch(`${hub.url}/api/automations`),
      await fetch(`${hub.url}/api/no-such-route`, { headers: { cookie: founder } }),
      await fetch(`${hub.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email": "a@b.c", "password": ' }),
    ]) {
      expect(response.status).toBeGreaterThanOrEqual(400)
      expect(response.status).toBeLessThan(500)
      isShaped(await response.json() as { message?: unknown, data?: Record<string, unknown> }, response.url)
    }
  })
})

describe('sessions and live views', () => {
  it('marks the session cookie Secure only when the request came over https (a LAN address over http signs in)', async () => {
    const plain = await login(FOUNDER.email, FOUNDER.password)
    expect(plain.status).toBe(200)
    expect(plain.headers.getSetCookie().join('\n')).not.toMatch(/;\s*Secure/i)
    const proxied = await fetch(`${hub.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' }, body: JSON.stringify({ email: FOUNDER.email, password: FOUNDER.password }),
    })
    expect(proxied.status).toBe(200)
    expect(proxied.headers.getSetCookie().join('\n')).toMatch(/synedre-session=[^;]+;.*Secure/i)
  })

  it('caps the live views one session holds open (429 too_many_streams), leaving other sessions alone', async () => {
    const mine = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
    const other = await signIn(hub.url, FOUNDER.email, FOUNDER.password)
    const open = (cookie: string) => fetch(`${hub.url}/api/atlas/events`, { headers: { cookie } })
    const streams: Response[] = []
    try {
      for (let i = 0; i < 10; i++) {
        const stream = await open(mine)
        expect(stream.status).toBe(200)
        streams.push(stream)
      }
      const refused = await open(mine)
      expect(refused.status).toBe(429)
      expect((await refused.json() as { data: Record<string, unknown> }).data).toMatchObject({ code: 'too_many_streams', message: expect.stringMatching(/close another tab/) })
      const theirs = await open(other)
      expect(theirs.status).toBe(200)
      streams.push(theirs)
      // Closing one gives its slot back (the server sees the socket close).
      await streams.shift()!.body!.cancel()
      let again = 0
      for (let attempt = 0; attempt < 50 && again !== 200; attempt++) {
        const retry = await open(mine)
        again = retry.status
        if (again === 200) streams.push(retry)
        else await new Promise(resolve => setTimeout(resolve, 100))
      }
      expect(again).toBe(200)
    }
    finally {
      await Promise.all(streams.map(stream => stream.body?.cancel()))
    }
  })
})

describe('headers and origin', () => {
  const HEADERS = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  }

  it('sends the security headers, and no x-powered-by, on every page and API response', async () => {
    const paths = ['/hub', '/no-such-page', '/api/health', '/api/no-such-route', ...builtApiRoutes().filter(r => r.method === 'GET').map(r => samplePath(r.route))]
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
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    // The login page's form must send its Origin (under no-referrer it would be "null"); nothing leaves the site.
    expect(page.headers.get('referrer-policy')).toBe('same-origin')
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
