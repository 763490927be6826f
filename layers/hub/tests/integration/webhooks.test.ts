// Webhooks into custom agents on both databases (issue 34, Deliver 6): a real GitHub push,
// signed with the trigger's secret, starts a run whose request holds a trusted summary and the
// payload fenced as untrusted data; the Gitea and Forgejo signatures are accepted too. A bad
// signature (or a hook without a secret yet), a replayed delivery id, an oversized body and an
// unknown hook are refused with 401, 409, 413 and 404 and audited without the body; an address
// refused too often gets 429 without more audit rows. Event and branch filters hold; saving
// the agent keeps its hook, a new trigger or a duplicate gets its own; the secret is sealed.
import { and, eq, like } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { agentRuns } from '#db/schema/agent-runs'
import { agentTriggers, agentWebhookDeliveries } from '#db/schema/custom-agents'
import { hubAudit, hubUsers } from '#db/schema/hub'
import { customRunContext } from '#layers/agents/core/custom/access'
import { ConfigBody, createCustomAgent, duplicateCustomAgent, saveCustomAgent, type CustomAgentView } from '#layers/agents/core/custom/agents'
import { customToolRegistry } from '#layers/agents/core/custom/delegation'
import { signBody } from '#layers/agents/core/custom/forge'
import { revealHookSecret } from '#layers/agents/core/custom/hook-admin'
import { webhookSealKey } from '#layers/agents/core/custom/webhook-secrets'
import { HOOK_BODY_LIMIT, receiveWebhook, refusalLimiter, type HookDeps } from '#layers/agents/core/custom/webhooks'
import { startRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import { untrustedFence } from '../../core/webhook-wiring'
import { GITHUB_PULL_REQUEST, GITHUB_PUSH } from '../fixtures/forge-payloads'

const OWNER = { email: 'owner-hooks@studio.test', role: 'operator' as const }
const KEY = webhookSealKey('a-session-key-of-at-least-32-characters!')

describeOnBothDatabases('webhooks into custom agents', (database) => {
  let engine: EngineDeps
  let delivery = 0
  const deps = (limiter = refusalLimiter()): HookDeps => ({
    db: database().db,
    sealKey: KEY,
    fence: untrustedFence,
    limiter,
    launch: async ({ codename, request }) => (await startRun(engine, await customRunContext(engine.db, engine.registry, { codename, request, trigger: 'autonomous', surface: 'automate' }))).id,
  })
  const github = (secret: string, event: string, payload: unknown, id = `gh-${++delivery}`) => {
    const body = Buffer.from(JSON.stringify(payload))
    return { body, headers: { 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': `sha256=${signBody(secret, body)}`, 'content-type': 'application/json' } }
  }
  const refusals = async (code: string) => (await database().db.select().from(hubAudit).where(eq(hubAudit.action, 'agent_webhook_refused')))
    .filter(row => (row.details as { code?: string }).code === code)

  async function hookedAgent(codename: string, trigger: Record<string, unknown> = { kind: 'webhook', events: ['push'], branch: 'master' }): Promise<{ view: CustomAgentView, slug: string }> {
    const view = await createCustomAgent(database().db, OWNER, {
      ...ConfigBody.parse({ nickname: codename, runsPerHour: 50, triggers: [trigger] }),
      codename,
    })
    return { view, slug: view.triggers[0]!.hookSlug! }
  }

  beforeAll(async () => {
    const { db } = database()
    await db.insert(hubUsers).values({ email: OWNER.email, name: 'Owner', role: 'operator', passwordHash: 'x' })
    engine = testEngineDeps(db, { registry: customToolRegistry() })
  })

  it('starts a run from a signed GitHub push, the payload fenced as untrusted data; refuses its replay with 409', async () => {
    const { db } = database()
    const { view, slug } = await hookedAgent('push-watcher')
    expect(view.triggers[0]).toMatchObject({ kind: 'webhook', event: 'push', hasSecret: false })
    expect(view.triggers[0]).not.toHaveProperty('hookSecret')
    // No secret shown yet: nothing can be signed with it.
    const early = github('guess', 'push', GITHUB_PUSH)
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.1', ...early })).toMatchObject({ status: 401, code: 'bad_signature' })

    const { secret } = await revealHookSecret(db, OWNER, 'push-watcher', slug, KEY, false)
    expect(secret).toMatch(/^[0-9a-f]{64}$/)
    expect((await revealHookSecret(db, OWNER, 'push-watcher', slug, KEY, false)).secret).toBe(secret)
    const [stored] = await db.select({ sealed: agentTriggers.hookSecret }).from(agentTriggers).where(eq(agentTriggers.hookSlug, slug))
    expect(stored!.sealed).toMatch(/^v1:/)
    expect(stored!.sealed).not.toContain(secret)
    const shown = await db.select().from(hubAudit).where(and(eq(hubAudit.target, 'agent:push-watcher'), like(hubAudit.action, 'agent_webhook_secret_%')))
    expect(shown.map(row => row.action)).toEqual(['agent_webhook_secret_rotated', 'agent_webhook_secret_shown'])
    expect(JSON.stringify(shown)).not.toContain(secret)

    const push = github(secret, 'push', GITHUB_PUSH, 'gh-first')
    const answer = await receiveWebhook(deps(), { slug, address: '198.51.100.1', ...push })
    expect(answer).toMatchObject({ status: 202, outcome: 'started', deliveryId: 'gh-first' })
    const runId = (answer as { runId: string }).runId
    const [run] = await db.select().from(agentRuns).where(eq(agentRuns.id, runId))
    expect(run).toMatchObject({ agent: 'push-watcher', trigger: 'autonomous', ownerEmail: OWNER.email })
    expect(run!.request).toMatch(/^Triggered by a forge webhook \(delivery gh-first\): a push to Codertocat\/Hello-World \(refs\/heads\/master\), pushed by Codertocat\./)
    const begin = run!.request.indexOf('<<<UNTRUSTED_DATA_BEGIN_')
    expect(begin).toBeGreaterThan(0)
    expect(run!.request.slice(0, begin)).toContain('WARNING')
    expect(run!.request.slice(begin)).toContain('"message":"Initial commit"')
    expect(await db.select().from(agentWebhookDeliveries).where(eq(agentWebhookDeliveries.hookSlug, slug))).toEqual([expect.objectContaining({ deliveryId: 'gh-first', forgeEvent: 'push', outcome: 'started', runId })])

    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.1', ...push })).toMatchObject({ status: 409, code: 'replayed' })
    expect(await refusals('replayed')).toEqual([expect.objectContaining({ actor: 'webhook:198.51.100.1', target: 'agent:push-watcher', details: expect.objectContaining({ deliveryId: 'gh-first', event: 'push', status: 409 }) })])
    expect(await db.select().from(agentRuns).where(eq(agentRuns.agent, 'push-watcher'))).toHaveLength(1)
  })

  it('accepts the Gitea and Forgejo signatures, refuses a wrong one, an oversized body and an unknown hook, each audited without the body', async () => {
    const { db } = database()
    const { slug } = await hookedAgent('gitea-watcher', { kind: 'webhook', events: ['push', 'pull_request'] })
    const { secret } = await revealHookSecret(db, OWNER, 'gitea-watcher', slug, KEY, false)
    const body = Buffer.from(JSON.stringify(GITHUB_PUSH))
    const gitea = await receiveWebhook(deps(), { slug, address: '198.51.100.2', body, headers: { 'x-gitea-event': 'push', 'x-gitea-delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead473', 'x-gitea-signature': signBody(secret, body) } })
    expect(gitea).toMatchObject({ status: 202, outcome: 'started' })
    const forgejo = await receiveWebhook(deps(), { slug, address: '198.51.100.2', body, headers: { 'x-forgejo-event': 'push', 'x-forgejo-delivery': 'fj-1', 'x-forgejo-signature': signBody(secret, body) } })
    expect(forgejo).toMatchObject({ status: 202, outcome: 'started' })

    const forged = github('not-the-secret', 'push', GITHUB_PUSH)
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.2', ...forged })).toMatchObject({ status: 401, code: 'bad_signature' })
    // Right secret, altered body: the signature covers the raw bytes.
    const signed = github(secret, 'push', GITHUB_PUSH)
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.2', headers: signed.headers, body: Buffer.concat([signed.body, Buffer.from(' ')]) })).toMatchObject({ status: 401 })
    // A SHA-1 header alone (X-Hub-Signature) is not accepted.
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.2', body, headers: { 'x-github-event': 'push', 'x-github-delivery': 'sha1', 'x-hub-signature': 'sha1=0000' } })).toMatchObject({ status: 401 })

    const huge = github(secret, 'push', { ...GITHUB_PUSH, padding: 'x'.repeat(HOOK_BODY_LIMIT) })
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.2', ...huge })).toMatchObject({ status: 413, code: 'too_large' })
    expect(await receiveWebhook(deps(), { slug: 'A'.repeat(32), address: '198.51.100.2', ...signed })).toMatchObject({ status: 404, code: 'unknown_hook' })
    expect(await receiveWebhook(deps(), { slug: '../../etc', address: '198.51.100.2', ...signed })).toMatchObject({ status: 404, code: 'unknown_hook' })

    const audited = (await db.select().from(hubAudit).where(eq(hubAudit.actor, 'webhook:198.51.100.2'))).filter(row => row.action === 'agent_webhook_refused')
    expect(audited.map(row => (row.details as { code: string }).code)).toEqual(['bad_signature', 'bad_signature', 'bad_signature', 'too_large', 'unknown_hook', 'unknown_hook'])
    expect(audited.find(row => (row.details as { code: string }).code === 'unknown_hook')!.target).toBe('hook:AAAAAA')
    const text = JSON.stringify(audited)
    expect(text).not.toContain('Initial commit')
    expect(text).not.toContain(secret)
    expect(text).not.toContain(slug)
    expect(await db.select().from(agentRuns).where(eq(agentRuns.agent, 'gitea-watcher'))).toHaveLength(2)
  })

  it('keeps to the trigger\'s events and branch: other events and branches are accepted and ignored', async () => {
    const { db } = database()
    const { slug } = await hookedAgent('main-pushes', { kind: 'webhook', events: ['push'], branch: 'main' })
    const { secret } = await revealHookSecret(db, OWNER, 'main-pushes', slug, KEY, false)
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.3', ...github(secret, 'push', GITHUB_PUSH) })).toMatchObject({ status: 202, outcome: 'ignored', runId: null })
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.3', ...github(secret, 'pull_request', { ...GITHUB_PULL_REQUEST, pull_request: { ...GITHUB_PULL_REQUEST.pull_request, base: { ...GITHUB_PULL_REQUEST.pull_request.base, ref: 'main' } } }) })).toMatchObject({ status: 202, outcome: 'ignored' })
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.3', ...github(secret, 'ping', { zen: 'Design for failure.', hook_id: 1 }) })).toMatchObject({ status: 202, outcome: 'ignored' })
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.3', ...github(secret, 'push', { ...GITHUB_PUSH, ref: 'refs/heads/main' }) })).toMatchObject({ status: 202, outcome: 'started' })

    const { slug: prSlug } = await hookedAgent('pr-reviewer', { kind: 'webhook', events: ['pull_request'] })
    const prSecret = (await revealHookSecret(db, OWNER, 'pr-reviewer', prSlug, KEY, false)).secret
    const opened = await receiveWebhook(deps(), { slug: prSlug, address: '198.51.100.3', ...github(prSecret, 'pull_request', GITHUB_PULL_REQUEST) })
    expect(opened).toMatchObject({ status: 202, outcome: 'started' })
    const [run] = await db.select().from(agentRuns).where(eq(agentRuns.id, (opened as { runId: string }).runId))
    expect(run!.request).toContain('pull request #2 opened on Codertocat/Hello-World (changes → master): "Update the README with new information."')
    expect(await db.select().from(agentRuns).where(eq(agentRuns.agent, 'main-pushes'))).toHaveLength(1)
  })

  it('keeps a hook across saves, gives a new trigger and a duplicate their own, and refuses a rotated-out secret', async () => {
    const { db } = database()
    const { slug } = await hookedAgent('kept-hook')
    const { secret } = await revealHookSecret(db, OWNER, 'kept-hook', slug, KEY, false)
    const config = ConfigBody.parse({ nickname: 'Kept', runsPerHour: 50, triggers: [{ kind: 'webhook', events: ['push'], branch: 'master', slug }, { kind: 'webhook', events: ['pull_request'] }] })
    const saved = await saveCustomAgent(db, OWNER, 'kept-hook', config)
    expect(saved.triggers.map(t => t.hookSlug)).toEqual([slug, expect.not.stringMatching(slug)])
    expect(saved.triggers.map(t => t.hasSecret)).toEqual([true, false])
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.4', ...github(secret, 'push', GITHUB_PUSH) })).toMatchObject({ status: 202, outcome: 'started' })
    // Someone else's slug named in a save is not taken over: it becomes a new hook.
    const other = await hookedAgent('other-hook')
    const stolen = await saveCustomAgent(db, OWNER, 'kept-hook', ConfigBody.parse({ nickname: 'Kept', triggers: [{ kind: 'webhook', events: ['push'], slug: other.slug }] }))
    expect(stolen.triggers[0]!.hookSlug).not.toBe(other.slug)
    expect(stolen.triggers[0]!.hasSecret).toBe(false)
    expect(await receiveWebhook(deps(), { slug, address: '198.51.100.4', ...github(secret, 'push', GITHUB_PUSH) })).toMatchObject({ status: 404 })

    const copy = await duplicateCustomAgent(db, OWNER, 'other-hook', 'other-copy', 'Copy')
    expect(copy.triggers[0]!.hookSlug).not.toBe(other.slug)
    const old = (await revealHookSecret(db, OWNER, 'other-hook', other.slug, KEY, false)).secret
    const rotated = await revealHookSecret(db, OWNER, 'other-hook', other.slug, KEY, true)
    expect(rotated.secret).not.toBe(old)
    expect(await receiveWebhook(deps(), { slug: other.slug, address: '198.51.100.4', ...github(old, 'push', GITHUB_PUSH) })).toMatchObject({ status: 401 })
    expect(await receiveWebhook(deps(), { slug: other.slug, address: '198.51.100.4', ...github(rotated.secret, 'push', GITHUB_PUSH) })).toMatchObject({ status: 202 })
    // A hub whose session key changed cannot open the sealed secret: refused until rotated.
    expect(await receiveWebhook({ ...deps(), sealKey: webhookSealKey('another-session-key-of-32-characters-or-more') }, { slug: other.slug, address: '198.51.100.4', ...github(rotated.secret, 'push', GITHUB_PUSH) })).toMatchObject({ status: 401 })
  })

  it('answers 429 to an address refused too often, without more audit rows, other addresses untouched', async () => {
    const { db } = database()
    let clock = 1_000_000
    const limiter = refusalLimiter({ max: 3, windowMs: 60_000, now: () => clock })
    const probe = github('x', 'push', GITHUB_PUSH)
    const answers = []
    for (let i = 0; i < 5; i++) answers.push((await receiveWebhook(deps(limiter), { slug: 'B'.repeat(32), address: '203.0.113.9', ...probe })).status)
    expect(answers).toEqual([404, 404, 404, 429, 429])
    expect(await db.select().from(hubAudit).where(eq(hubAudit.actor, 'webhook:203.0.113.9'))).toHaveLength(3)
    expect((await receiveWebhook(deps(limiter), { slug: 'B'.repeat(32), address: '203.0.113.10', ...probe })).status).toBe(404)
    clock += 61_000
    expect((await receiveWebhook(deps(limiter), { slug: 'B'.repeat(32), address: '203.0.113.9', ...probe })).status).toBe(404)
  })
})
