// Personal access tokens through the built hub (issue 34, Deliver 5): a script with a token and
// no cookie lists the inbox and starts a custom agent run, as its owner; a revoked or expired
// token gets 401 invalid_token, a read token 403 token_scope on a write, a domain outside its
// scopes 403 token_scope; tokens and the password answer a token 403 session_required (a leaked
// token mints no other); bad tokens from one address end in 429 with retry-after.
import { request } from 'node:http'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { hubDatabase, signInEveryRole, startHub, type Hub } from '../helpers/hub'

type Who = 'founder' | 'operator' | 'viewer'
let hub: Hub
let cookies: Record<Who, string>

beforeAll(async () => {
  hub = await startHub({ args: ['--no-supervisor'], env: { AI_OFFLINE: '1', ATLAS_SPAWN_DISABLED: '1' } })
  cookies = await signInEveryRole(hub)
}, 240_000)

afterAll(async () => {
  await hub?.interrupt()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

async function call(
  method: string,
  path: string,
  auth: { cookie?: string, token?: string },
  body?: unknown,
): Promise<{ status: number, json: Json, headers: Headers }> {
  const response = await fetch(`${hub.url}/api${path}`, {
    method,
    headers: {
      ...(auth.cookie ? { cookie: auth.cookie } : {}),
      ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
      ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
    },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null, headers: response.headers }
}

async function newToken(
  who: Who,
  name: string,
  scopes: string[],
  expiresInDays?: number,
): Promise<{ id: string, secret: string, prefix: string }> {
  const created = await call('POST', '/tokens', { cookie: cookies[who] }, { name, scopes, ...(expiresInDays ? { expiresInDays } : {}) })
  expect(created.status, JSON.stringify(created.json)).toBe(201)
  expect(created.headers.get('cache-control')).toBe('no-store')
  return { id: created.json.token.id, secret: created.json.secret, prefix: created.json.token.prefix }
}

it('lets a script with a token and no cookie list the inbox and start a custom agent run, as its owner', async () => {
  const agent = await call('POST', '/agents/custom', { cookie: cookies.operator }, { codename: 'http-tokens', nickname: 'Tokens', allowlist: { tools: ['recall_memory'] } })
  expect(agent.status).toBe(200)
  const token = await newToken('operator', 'inbox script', ['atlas:read', 'agents:write'])
  expect(token.secret).toMatch(/^syn_[\w-]{43}$/)

  const inbox = await call('GET', '/atlas/inbox?pageSize=5', { token: token.secret })
  expect(inbox.status).toBe(200)
  expect(inbox.json).toHaveProperty('items')
  const run = await call('POST', '/agents/custom/http-tokens/runs', { token: token.secret }, { request: 'What do you watch?' })
  expect(run.status, JSON.stringify(run.json)).toBe(200)
  expect(run.json.run).toMatchObject({ agent: 'http-tokens' })
  // The run is the owner's: their session opens it.
  expect((await call('GET', `/agents/runs/${run.json.run.id}`, { cookie: cookies.operator })).status).toBe(200)

  const listed = await call('GET', '/tokens', { cookie: cookies.operator })
  const mine = listed.json.items.find((item: Json) => item.id === token.id)
  expect(mine).toMatchObject({ name: 'inbox script', prefix: token.prefix, scopes: ['atlas:read', 'agents:write'], state: 'active', owner: { email: 'operator@studio.test' } })
  expect(mine.lastUsedAt).not.toBeNull()
  // Shown once: no answer carries the secret again.
  expect(JSON.stringify(listed.json)).not.toContain(token.secret)
})

it('answers 403 token_scope to a read token\'s write and to a domain outside the scopes; the role still applies', async () => {
  const read = await newToken('operator', 'read only', ['atlas:read', 'agents:read'])
  const write = await call('POST', '/agents/custom/http-tokens/runs', { token: read.secret }, { request: 'Hello' })
  expect(write.status).toBe(403)
  expect(write.json.data).toEqual({ code: 'token_scope', message: expect.any(String) })
  const outside = await call('GET', '/memory/stats', { token: read.secret })
  expect(outside.status).toBe(403)
  expect(outside.json.data).toMatchObject({ code: 'token_scope' })
  // A founder-only write with an operator's write token: the owner's role decides.
  const broad = await newToken('operator', 'automations', ['automations:write'])
  const founderOnly = await call('PATCH', '/automations/nightly-backup', { token: broad.secret }, { active: false })
  expect(founderOnly.status).toBe(403)
  expect(founderOnly.json.data).toMatchObject({ code: 'forbidden', role: 'operator', requiredRole: 'founder' })
})

it('keeps tokens and the password to browser sessions: a token gets 403 session_required', async () => {
  const token = await newToken('founder', 'everything', ['atlas:write', 'agents:write', 'health:write'])
  for (const [method, path, body] of [
    ['GET', '/tokens', undefined],
    ['POST', '/tokens', { name: 'minted', scopes: ['atlas:write'] }],
    ['DELETE', `/tokens/${token.id}`, undefined],
    ['POST', '/auth/password', { currentPassword: 'founder-password-123', newPassword: 'another-long-password-1' }],
  ] as const) {
    const answer = await call(method, path, { token: token.secret }, body)
    expect(answer.status, `${method} ${path}`).toBe(403)
    expect(answer.json.data, `${method} ${path}`).toEqual({ code: 'session_required', message: expect.any(String) })
  }
  // A viewer reads their (empty) list but creates none; an operator lists only their own.
  expect((await call('POST', '/tokens', { cookie: cookies.viewer }, { name: 'x', scopes: ['atlas:read'] })).json.data).toMatchObject({ code: 'forbidden' })
  expect((await call('GET', '/tokens?all=true', { cookie: cookies.operator })).status).toBe(403)
  const everyone = await call('GET', '/tokens?all=true', { cookie: cookies.founder })
  expect(new Set(everyone.json.items.map((item: Json) => item.owner.email))).toEqual(new Set(['founder@studio.test', 'operator@studio.test']))
  const bad = await call('POST', '/tokens', { cookie: cookies.operator }, { name: 'bad', scopes: ['tokens:write'] })
  expect(bad.status).toBe(400)
  expect(bad.json.data).toMatchObject({ code: 'bad_input' })
})

it('answers 401 invalid_token at once to a revoked token and to an expired one; someone else\'s token is 404 to revoke', async () => {
  const token = await newToken('operator', 'to revoke', ['atlas:read'])
  expect((await call('GET', '/atlas/inbox', { token: token.secret })).status).toBe(200)
  const founders = await newToken('founder', 'founder\'s', ['atlas:read'])
  expect((await call('DELETE', `/tokens/${founders.id}`, { cookie: cookies.operator })).json.data).toMatchObject({ code: 'not_found' })
  const revoked = await call('DELETE', `/tokens/${token.id}`, { cookie: cookies.operator })
  expect(revoked.json.token).toMatchObject({ state: 'revoked' })
  const after = await call('GET', '/atlas/inbox', { token: token.secret })
  expect(after.status).toBe(401)
  expect(after.json.data).toEqual({ code: 'invalid_token', message: expect.any(String) })

  const expiring = await newToken('operator', 'to expire', ['atlas:read'], 1)
  const database = await hubDatabase(hub)
  try {
    await database.db.execute(sql`update hub_tokens set expires_at = now() - interval '1 second' where id = ${expiring.id}`)
  }
  finally {
    await database.close()
  }
  const expired = await call('GET', '/atlas/inbox', { token: expiring.secret })
  expect(expired.status).toBe(401)
  expect(expired.json.data).toMatchObject({ code: 'invalid_token' })

  const audit = await call('GET', '/activity?action=token_revoked&pageSize=100', { cookie: cookies.founder })
  expect(audit.json.items).toEqual(expect.arrayContaining([expect.objectContaining({ target: token.prefix })]))
})

/** A GET from another loopback address (127.0.0.x): the hub counts bad tokens per address. */
function getFrom(localAddress: string, path: string, token: string): Promise<{ status: number, retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: hub.port, path: `/api${path}`, method: 'GET', localAddress, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume()
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string | undefined }))
    })
    sent.on('error', reject)
    sent.end()
  })
}

it('makes an address that sends too many bad tokens wait (429, retry-after), while a valid token and other addresses go on', async () => {
  const good = await newToken('operator', 'throttled neighbour', ['atlas:read'])
  expect((await getFrom('127.0.0.77', '/atlas/inbox', good.secret)).status).toBe(200)
  for (let i = 0; i < 10; i++) expect((await getFrom('127.0.0.77', '/atlas/inbox', `syn_${'x'.repeat(42)}${i}`)).status).toBe(401)
  const limited = await getFrom('127.0.0.77', '/atlas/inbox', `syn_${'y'.repeat(43)}`)
  expect(limited.status).toBe(429)
  expect(Number(limited.retryAfter)).toBeGreaterThan(0)
  expect((await getFrom('127.0.0.77', '/atlas/inbox', good.secret)).status).toBe(200)
  expect((await getFrom('127.0.0.78', '/atlas/inbox', 'syn_unknown')).status).toBe(401)
})
