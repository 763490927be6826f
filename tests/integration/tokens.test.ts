// Personal access tokens on both databases: created with the secret answered once and only its
// hash stored, listed per person (everyone's for the founder), revoked by the owner or the
// founder, every change audited; and verified as the auth middleware verifies them (the same
// function, the same lookups): scopes, the owner's current role and state, revocation and
// expiry at once, last_used_at at most once a minute, and the wait after too many bad tokens.
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { describeOnBothDatabases } from '../helpers/databases'
import { hubAudit, hubTokens, hubUsers } from '#db/schema/index'
import type { Db } from '#db/connection'
import { createUser, findUserById } from '#server/core/users'
import { createToken, findToken, listTokens, MAX_LIVE_TOKENS, revokeToken, tokenRefusal, touchToken, type TokenActor } from '#server/core/tokens'
import { authenticateToken, BAD_TOKEN_FREE, bearerSecret, forgetAllTokens, forgetToken, TOKEN_TTL_MS } from '#server/core/token-auth'
import { TokenCreate } from '#shared/tokens'

const input = (fields: Record<string, unknown>) => TokenCreate.parse(fields)

async function person(db: Db, email: string, role: 'founder' | 'operator' | 'viewer'): Promise<TokenActor> {
  const user = await createUser(db, { email, role, password: `${role}-password-for-tokens` }, 'test')
  return { id: user.id, email: user.email, role: user.role }
}

function deps(db: Db, now?: () => number) {
  let touches = 0
  return {
    touches: () => touches,
    deps: {
      findToken: async (secret: string) => await findToken(db, secret),
      touchToken: async (id: string, at: Date) => {
        touches++
        await touchToken(db, id, at)
      },
      // No remembered row here: each check reads the owner's current role and state.
      account: async (id: string) => await findUserById(db, id),
      ...(now ? { now } : {}),
    },
  }
}

const GET = (path: string) => ({ method: 'GET', path })
const POST = (path: string) => ({ method: 'POST', path })

beforeEach(() => forgetAllTokens())

describeOnBothDatabases('personal access tokens', (database) => {
  it('answers the secret once, stores only its hash, and audits the creation without it', async () => {
    const { db } = database()
    const op = await person(db, 'op-create@studio.test', 'operator')
    const result = await createToken(db, op, input({ name: 'Inbox script', scopes: ['atlas:read', 'agents:write', 'atlas:read'] }))
    if (!result.ok) throw new Error('not created')
    const { token, secret } = result.created
    expect(secret).toMatch(/^syn_[\w-]{43}$/)
    expect(token).toMatchObject({ name: 'Inbox script', prefix: secret.slice(0, 12), scopes: ['atlas:read', 'agents:write'], state: 'active', lastUsedAt: null, owner: { email: 'op-create@studio.test' } })
    // The default expiry: 90 days.
    expect(Date.parse(token.expiresAt) - Date.parse(token.createdAt)).toBeGreaterThan(89.9 * 24 * 3600_000)
    const [row] = await db.select().from(hubTokens).where(eq(hubTokens.id, token.id))
    expect(row!.secretHash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(row)).not.toContain(secret)
    const audit = await db.select().from(hubAudit).where(eq(hubAudit.action, 'token_created'))
    expect(audit.find(entry => entry.target === token.prefix)).toMatchObject({ actor: 'op-create@studio.test', details: { after: { name: 'Inbox script', owner: 'op-create@studio.test' } } })
    expect(JSON.stringify(audit)).not.toContain(secret)
  })

  it('lists a person\'s own tokens, everyone\'s for the founder; only the owner or the founder revokes, and revoking twice changes nothing', async () => {
    const { db } = database()
    const founder = await person(db, 'founder-list@studio.test', 'founder')
    const a = await person(db, 'op-a@studio.test', 'operator')
    const b = await person(db, 'op-b@studio.test', 'operator')
    const ofA = await createToken(db, a, input({ name: 'A', scopes: ['memory:read'] }))
    const ofB = await createToken(db, b, input({ name: 'B', scopes: ['memory:read'] }))
    if (!ofA.ok || !ofB.ok) throw new Error('not created')
    expect((await listTokens(db, { userId: a.id })).map(token => token.name)).toEqual(['A'])
    expect((await listTokens(db, 'everyone')).map(token => token.name)).toEqual(expect.arrayContaining(['A', 'B']))
    expect(await revokeToken(db, ofB.created.token.id, a)).toEqual({ ok: false, code: 'not_found' })
    expect(await revokeToken(db, '00000000-0000-4000-8000-000000000000', founder)).toEqual({ ok: false, code: 'not_found' })
    const revoked = await revokeToken(db, ofB.created.token.id, founder)
    expect(revoked).toMatchObject({ ok: true, token: { state: 'revoked', owner: { email: 'op-b@studio.test' } } })
    const again = await revokeToken(db, ofB.created.token.id, b)
    expect(again).toMatchObject({ ok: true, token: { revokedAt: revoked.ok ? revoked.token.revokedAt : '' } })
    const audit = await db.select().from(hubAudit).where(eq(hubAudit.action, 'token_revoked'))
    expect(audit.filter(entry => entry.target === ofB.created.token.prefix)).toEqual([
      expect.objectContaining({ actor: 'founder-list@studio.test', details: { before: expect.objectContaining({ state: 'active', revokedAt: null }), after: expect.objectContaining({ state: 'revoked' }) } }),
    ])
  })

  it('refuses a fifty-first live token', async () => {
    const { db } = database()
    const op = await person(db, 'op-many@studio.test', 'operator')
    await db.insert(hubTokens).values([...Array(MAX_LIVE_TOKENS)].map((_, i) => ({
      userId: op.id, name: `t${i}`, prefix: `syn_many${i}`, secretHash: `many-${i}`, scopes: ['atlas:read'], expiresAt: new Date(Date.now() + 3600_000),
    })))
    expect(await createToken(db, op, input({ name: 'one more', scopes: ['atlas:read'] }))).toEqual({ ok: false, code: 'too_many_tokens', max: MAX_LIVE_TOKENS })
  })

  it('acts as its owner within its scopes: read is GET, write is every method, tokens and the password need a session', async () => {
    const { db } = database()
    const op = await person(db, 'op-scopes@studio.test', 'operator')
    const created = await createToken(db, op, input({ name: 'scopes', scopes: ['atlas:read', 'agents:write'] }))
    if (!created.ok) throw new Error('not created')
    const { deps: verify } = deps(db)
    const as = (request: { method: string, path: string }) => authenticateToken(verify, { secret: created.created.secret, address: '203.0.113.1', ...request })
    expect(await as(GET('/api/atlas/inbox?pageSize=5'))).toMatchObject({ ok: true, user: { email: 'op-scopes@studio.test', role: 'operator' } })
    expect(await as(POST('/api/agents/custom/scribe/runs'))).toMatchObject({ ok: true })
    expect(await as(GET('/api/agents/runs'))).toMatchObject({ ok: true })
    expect(await as(POST('/api/atlas/messages/x/approve'))).toMatchObject({ ok: false, status: 403, code: 'token_scope' })
    expect(await as(GET('/api/memory/search'))).toMatchObject({ ok: false, status: 403, code: 'token_scope' })
    for (const path of ['/api/tokens', '/api/tokens/abc', '/api/auth/password', '/api/_auth/session', '/api/%74okens', '//api//Tokens'.replace(/^\/\//, '/')]) {
      expect(await as(GET(path)), path).toMatchObject({ ok: false, status: 403, code: 'session_required' })
    }
  })

  it('stops at once when revoked, when expired, and when its owner is disabled; follows the owner\'s current role', async () => {
    const { db } = database()
    const op = await person(db, 'op-stops@studio.test', 'operator')
    const make = async (name: string, expiresInDays = 1) => {
      const created = await createToken(db, op, input({ name, scopes: ['atlas:write'], expiresInDays }))
      if (!created.ok) throw new Error('not created')
      return created.created
    }
    const revoked = await make('revoked')
    let now = Date.now()
    const { deps: verify } = deps(db, () => now)
    const check = (secret: string) => authenticateToken(verify, { secret, address: '203.0.113.2', ...GET('/api/atlas/inbox') })
    expect(await check(revoked.secret)).toMatchObject({ ok: true })
    await revokeToken(db, revoked.token.id, op)
    forgetToken(revoked.token.id)
    expect(await check(revoked.secret)).toMatchObject({ ok: false, status: 401, code: 'invalid_token', message: 'This token was revoked.' })

    const expiring = await make('expiring')
    now = Date.now()
    expect(await check(expiring.secret)).toMatchObject({ ok: true })
    now += 24 * 3600_000 + 1000
    // Remembered or not, an expired token is refused.
    expect(await check(expiring.secret)).toMatchObject({ ok: false, status: 401, code: 'invalid_token', message: 'This token has expired.' })

    now = Date.now()
    const live = await make('live')
    await db.update(hubUsers).set({ role: 'viewer' }).where(eq(hubUsers.id, op.id))
    expect(await check(live.secret)).toMatchObject({ ok: true, user: { role: 'viewer' } })
    await db.update(hubUsers).set({ active: false }).where(eq(hubUsers.id, op.id))
    expect(await check(live.secret)).toMatchObject({ ok: false, status: 401, code: 'invalid_token' })
    expect(await check('syn_' + 'x'.repeat(43))).toMatchObject({ ok: false, status: 401, message: 'This token is unknown.' })
  })

  it('writes last_used_at at most once a minute, and reads a remembered token without a lookup', async () => {
    const { db } = database()
    const op = await person(db, 'op-touch@studio.test', 'operator')
    const created = await createToken(db, op, input({ name: 'touch', scopes: ['atlas:read'] }))
    if (!created.ok) throw new Error('not created')
    let now = Date.now()
    let lookups = 0
    const counted = deps(db, () => now)
    const verify = { ...counted.deps, findToken: async (secret: string) => {
      lookups++
      return await findToken(db, secret)
    } }
    const check = () => authenticateToken(verify, { secret: created.created.secret, address: '203.0.113.3', ...GET('/api/atlas/inbox') })
    for (let i = 0; i < 20; i++) expect(await check()).toMatchObject({ ok: true })
    expect({ lookups, touches: counted.touches() }).toEqual({ lookups: 1, touches: 1 })
    const [first] = await db.select({ at: hubTokens.lastUsedAt }).from(hubTokens).where(eq(hubTokens.id, created.created.token.id))
    expect(first!.at!.getTime()).toBe(now)
    now += TOKEN_TTL_MS + 1
    expect(await check()).toMatchObject({ ok: true })
    expect({ lookups, touches: counted.touches() }).toEqual({ lookups: 2, touches: 1 })
    now += 60_000
    expect(await check()).toMatchObject({ ok: true })
    expect(counted.touches()).toBe(2)
    expect((await listTokens(db, { userId: op.id }))[0]!.lastUsedAt).toBe(new Date(now).toISOString())
  })

  it('makes an address wait after too many bad tokens, without keeping out a valid remembered token or another address', async () => {
    const { db } = database()
    const op = await person(db, 'op-throttle@studio.test', 'operator')
    const created = await createToken(db, op, input({ name: 'good', scopes: ['atlas:read'] }))
    if (!created.ok) throw new Error('not created')
    const { deps: verify } = deps(db)
    const from = (address: string, secret: string) => authenticateToken(verify, { secret, address, ...GET('/api/atlas/inbox') })
    expect(await from('203.0.113.9', created.created.secret)).toMatchObject({ ok: true })
    for (let i = 0; i < BAD_TOKEN_FREE; i++) expect(await from('203.0.113.9', `syn_guess${i}`)).toMatchObject({ ok: false, status: 401 })
    const limited = await from('203.0.113.9', 'syn_guess-again')
    expect(limited).toMatchObject({ ok: false, status: 429, code: 'too_many_bad_tokens' })
    expect(limited.ok ? 0 : 'retryAfterSeconds' in limited ? limited.retryAfterSeconds : 0).toBeGreaterThan(0)
    expect(await from('203.0.113.9', created.created.secret)).toMatchObject({ ok: true })
    expect(await from('203.0.113.10', 'syn_guess')).toMatchObject({ ok: false, status: 401 })
  })
})

describe('reading a request', () => {
  it('takes a Bearer secret, leaves other schemes to the cookie, and reads an empty Bearer as a bad token', () => {
    expect(bearerSecret(undefined)).toBeUndefined()
    expect(bearerSecret('Basic dXNlcjpwYXNz')).toBeUndefined()
    expect(bearerSecret('Bearer syn_abc')).toBe('syn_abc')
    expect(bearerSecret('bearer   syn_abc ')).toBe('syn_abc')
    expect(bearerSecret('Bearer')).toBe('')
    expect(bearerSecret('Bearer a b')).toBe('')
  })

  it('reads scopes per domain, with write covering read', () => {
    expect(tokenRefusal(['atlas:write'], 'GET', '/api/atlas/inbox')).toBeNull()
    expect(tokenRefusal(['atlas:write'], 'DELETE', '/api/atlas/x')).toBeNull()
    expect(tokenRefusal(['atlas:read'], 'HEAD', '/api/atlas/inbox')).toBeNull()
    expect(tokenRefusal(['atlas:read'], 'OPTIONS', '/api/atlas/inbox')).toBe('token_scope')
    expect(tokenRefusal(['atlas:read'], 'GET', '/api/atlasx/inbox')).toBe('token_scope')
    expect(tokenRefusal(['atlas:read'], 'GET', '/api/%E0%A4%A')).toBe('token_scope')
    expect(TokenCreate.safeParse({ name: 'x', scopes: ['tokens:write'] }).success).toBe(false)
    expect(TokenCreate.safeParse({ name: 'x', scopes: [] }).success).toBe(false)
    expect(TokenCreate.safeParse({ name: 'x', scopes: ['atlas:read'], expiresInDays: 400 }).success).toBe(false)
  })
})
