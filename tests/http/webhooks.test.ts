// Webhooks into custom agents through the built hub (issue 34, Deliver 6): an operator adds a
// webhook trigger to a custom agent, makes its secret (a viewer may not; the page's data never
// carries it), and a real GitHub push payload signed with it, POSTed without any session to
// /api/hooks/<slug>, is answered 202 with a run of the agent. A bad signature, the same
// delivery again and an oversized body are refused with 401, 409 and 413 and their data.code,
// each audited (visible in the activity log, without the body or the secret); an unknown
// hook is 404. (A body over the hub's own 1 MB is the request guard's 413 before any reading:
// hardening.test.ts "request bounds".)
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { GITHUB_PUSH } from '#layers/hub/tests/fixtures/forge-payloads'
import { signInEveryRole, startHub, type Hub } from '../helpers/hub'

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

async function call(method: string, path: string, who: Who, body?: unknown): Promise<{ status: number, json: Json }> {
  const response = await fetch(`${hub.url}/api${path}`, {
    method,
    headers: { cookie: cookies[who], ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}

/** A forge's POST: no cookie, no Origin, the signature over the exact bytes sent. */
async function deliver(slug: string, body: string, headers: Record<string, string>): Promise<{ status: number, json: Json }> {
  const response = await fetch(`${hub.url}/api/hooks/${slug}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/test', ...headers }, body })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}
const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
const refusals = async () => (await call('GET', '/activity?action=agent_webhook_refused&pageSize=100', 'founder')).json.items as Array<{ target: string | null, details: Record<string, unknown> }>

it('starts a run from a signed push and refuses a bad signature, a replay and an oversized body with 4xx, audited', async () => {
  const created = await call('POST', '/agents/custom', 'operator', { codename: 'http-hooked', nickname: 'Hooked', triggers: [{ kind: 'webhook', events: ['push'], branch: 'master' }] })
  expect(created.status).toBe(200)
  const trigger = created.json.triggers[0]
  expect(trigger).toMatchObject({ kind: 'webhook', hasSecret: false })
  expect(trigger).not.toHaveProperty('hookSecret')
  const slug: string = trigger.hookSlug
  expect(slug).toMatch(/^[\w-]{32}$/)

  // The secret: not for a viewer, made on the first showing, then shown again unchanged.
  expect((await call('POST', `/agents/custom/http-hooked/hooks/${slug}/secret`, 'viewer', {})).status).toBe(403)
  expect((await call('POST', `/agents/custom/http-hooked/hooks/${'x'.repeat(32)}/secret`, 'operator', {})).json.data).toMatchObject({ code: 'not_found' })
  const made = await call('POST', `/agents/custom/http-hooked/hooks/${slug}/secret`, 'operator', {})
  expect(made.status).toBe(200)
  const secret: string = made.json.secret
  expect(secret).toMatch(/^[0-9a-f]{64}$/)
  expect((await call('POST', `/agents/custom/http-hooked/hooks/${slug}/secret`, 'operator', {})).json).toMatchObject({ secret, rotated: false })
  const page = await call('GET', '/agents/custom/http-hooked', 'operator')
  expect(JSON.stringify(page.json)).not.toContain(secret)
  expect(page.json.triggers[0]).toMatchObject({ hookSlug: slug, hasSecret: true })

  const body = JSON.stringify(GITHUB_PUSH)
  const headers = { 'x-github-event': 'push', 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' }
  const accepted = await deliver(slug, body, { ...headers, 'x-hub-signature-256': sign(secret, body) })
  expect(accepted.status).toBe(202)
  expect(accepted.json).toMatchObject({ outcome: 'started', deliveryId: headers['x-github-delivery'] })
  const run = await call('GET', `/agents/runs/${accepted.json.runId}`, 'operator')
  expect(run.json.run).toMatchObject({ id: accepted.json.runId, agent: 'http-hooked', trigger: 'autonomous' })
  expect(run.json.run.request).toContain('a push to Codertocat/Hello-World (refs/heads/master)')
  expect(run.json.run.request).toContain('<<<UNTRUSTED_DATA_BEGIN_')

  const forged = await deliver(slug, body, { ...headers, 'x-github-delivery': 'forged-1', 'x-hub-signature-256': sign('not-the-secret', body) })
  expect(forged.status).toBe(401)
  expect(forged.json.data).toMatchObject({ code: 'bad_signature' })
  const replayed = await deliver(slug, body, { ...headers, 'x-hub-signature-256': sign(secret, body) })
  expect(replayed.status).toBe(409)
  expect(replayed.json.data).toMatchObject({ code: 'replayed' })
  const big = JSON.stringify({ ...GITHUB_PUSH, padding: 'x'.repeat(600 * 1024) })
  const oversized = await deliver(slug, big, { ...headers, 'x-github-delivery': 'big-1', 'x-hub-signature-256': sign(secret, big) })
  expect(oversized.status).toBe(413)
  expect(oversized.json.data).toMatchObject({ code: 'too_large' })
  const unknown = await deliver('U'.repeat(32), body, { ...headers, 'x-hub-signature-256': sign(secret, body) })
  expect(unknown.status).toBe(404)
  expect(unknown.json.data).toMatchObject({ code: 'unknown_hook' })

  const audited = await refusals()
  expect(audited.map(row => row.details.code).sort()).toEqual(['bad_signature', 'replayed', 'too_large', 'unknown_hook'])
  expect(audited.filter(row => row.details.code !== 'unknown_hook').every(row => row.target === 'agent:http-hooked')).toBe(true)
  const text = JSON.stringify(audited)
  expect(text).not.toContain(secret)
  expect(text).not.toContain('Initial commit')
  expect((await call('GET', '/activity?action=agent_webhook_received&pageSize=100', 'founder')).json.items).toEqual([expect.objectContaining({ target: 'agent:http-hooked', details: expect.objectContaining({ outcome: 'started', runId: accepted.json.runId }) })])

  // Rotating: the old secret is refused from then on.
  const rotated = await call('POST', `/agents/custom/http-hooked/hooks/${slug}/secret`, 'operator', { rotate: true })
  expect(rotated.json.rotated).toBe(true)
  expect((await deliver(slug, body, { ...headers, 'x-github-delivery': 'after-rotation', 'x-hub-signature-256': sign(secret, body) })).status).toBe(401)
  expect((await deliver(slug, body, { ...headers, 'x-github-delivery': 'after-rotation', 'x-hub-signature-256': sign(rotated.json.secret, body) })).status).toBe(202)
})
