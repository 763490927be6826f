// Models by surface on both databases (issue 19 Deliver 8, seed 003 I12): the founder's
// ordered list per surface, the Auto rule (first allowed model whose provider is configured
// and not cooling down, offline last), a person's choice kept and used while allowed, a
// withdrawn choice falling back to Auto at the next run (said on the run row), a request
// naming a model the surface does not allow refused before any run exists.
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { createAiFacade } from '#layers/ai/core/facade'
import { hubToolPorts } from '#layers/hub/core/agent-ports'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { personalRunContext, StartRunBody } from '../../core/engine/api'
import { chatRunContext } from '../../core/engine/chat'
import { firstToolRegistry } from '../../core/engine/first-tools'
import { createRun, driveRun, startRun, type EngineDeps } from '../../core/engine/loop'
import { autoOrder, modelChoice, resolveModel, setModelChoice, setSurfaceModels, surfaceModels } from '../../core/engine/models'
import type { ToolChatRequest } from '#layers/ai/core/tool-chat'

const PERSON = { id: '00000000-0000-4000-8000-000000000021', email: 'op-models@studio.test', role: 'operator' as const }
const FOUNDER = 'founder@studio.test'

describeOnBothDatabases('models by surface', (database) => {
  let deps: EngineDeps
  const asked: ToolChatRequest[] = []
  // The first turn of the last run (later turns are pinned to who answered it).
  const firstTurn = () => asked.filter(request => !request.pinned).at(-1)

  beforeAll(async () => {
    const { db } = database()
    // Offline is the only configured provider here (no key for the others).
    const ai = createAiFacade({ env: {}, db, log: () => {} })
    deps = {
      db,
      chat: (request) => {
        asked.push(request)
        return ai.chatWithTools(request)
      },
      flushLedger: () => ai.flush(),
      registry: firstToolRegistry(),
      ports: hubToolPorts({ db, embedder: offlineEmbedder(db), vaultDir: '/nonexistent', team: [], mailer: () => { throw new Error('no mail in this test') } }),
      providers: () => ai.providers(),
      log: () => {},
    }
  })

  it('leaves a surface without a list unrestricted (the facade\'s routing)', async () => {
    const { db } = database()
    const run = await driveRun(deps, (await createRun(deps, await chatRunContext(db, PERSON, { request: 'hello' }))).id)
    expect(run).toMatchObject({ status: 'succeeded', provider: 'offline', modelNote: null })
    expect(firstTurn()).not.toHaveProperty('candidates')
  })

  it('runs Auto on the first allowed model whose provider is available, and keeps failover inside the list', async () => {
    const { db } = database()
    await setSurfaceModels(db, 'hub_chat', [
      { provider: 'mistral', model: 'mistral-large-latest', enabled: true },
      { provider: 'offline', model: 'offline-rules-v1', enabled: true },
      { provider: 'anthropic', model: 'claude-haiku-4-5', enabled: true },
    ], FOUNDER)
    expect((await surfaceModels(db, 'hub_chat')).map(row => `${row.position}:${row.provider}`)).toEqual(['0:mistral', '1:offline', '2:anthropic'])
    expect(Number((await db.execute<{ n: number }>(sql`select count(*)::int as n from hub_audit where action = 'agent_surface_models_set'`))[0]!.n)).toBeGreaterThan(0)
    const run = await driveRun(deps, (await createRun(deps, await chatRunContext(db, PERSON, { request: 'hello' }))).id)
    // Mistral and Anthropic have no key: offline (last by the rule) is the one available.
    expect(run).toMatchObject({ status: 'succeeded', provider: 'offline', model: 'offline-rules-v1', modelNote: null })
    expect(firstTurn()!.candidates).toEqual([
      { provider: 'offline', model: 'offline-rules-v1' },
      { provider: 'mistral', model: 'mistral-large-latest' },
      { provider: 'anthropic', model: 'claude-haiku-4-5' },
    ])
  })

  it('uses a person\'s kept choice while allowed; withdrawn, the next run falls back to Auto and says so', async () => {
    const { db } = database()
    await expect(setModelChoice(db, PERSON.email, 'hub_chat', { provider: 'openai', model: 'gpt-4o' })).rejects.toMatchObject({ code: 'model_not_allowed', status: 400 })
    await setModelChoice(db, PERSON.email, 'hub_chat', { provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(await modelChoice(db, PERSON.email, 'hub_chat')).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' })
    const chosen = await createRun(deps, await chatRunContext(db, PERSON, { request: 'hello' }))
    expect(chosen.context).toMatchObject({ modelResolution: { mode: 'choice', first: { provider: 'anthropic', model: 'claude-haiku-4-5' } } })

    // The founder withdraws it (disabled): the choice is kept, the next run says it was withdrawn.
    await setSurfaceModels(db, 'hub_chat', [
      { provider: 'mistral', model: 'mistral-large-latest', enabled: true },
      { provider: 'offline', model: 'offline-rules-v1', enabled: true },
      { provider: 'anthropic', model: 'claude-haiku-4-5', enabled: false },
    ], FOUNDER)
    const next = await driveRun(deps, (await createRun(deps, await chatRunContext(db, PERSON, { request: 'hello again' }))).id)
    expect(next).toMatchObject({ status: 'succeeded', provider: 'offline', model: 'offline-rules-v1', modelNote: 'model anthropic/claude-haiku-4-5 was withdrawn, Auto used' })
    expect(firstTurn()!.candidates!.map(c => c.provider)).toEqual(['offline', 'mistral'])
    // Back to Auto: no note any more.
    await setModelChoice(db, PERSON.email, 'hub_chat', null)
    expect((await createRun(deps, await chatRunContext(db, PERSON, { request: 'hi' }))).modelNote).toBeNull()
  })

  it('refuses a run that names a model the surface does not allow, writing no run', async () => {
    const { db } = database()
    const count = async () => Number((await db.execute<{ n: number }>(sql`select count(*)::int as n from agent_runs`))[0]!.n)
    const before = await count()
    const body = StartRunBody.parse({ request: 'hello', model: { provider: 'anthropic', model: 'claude-haiku-4-5' } })
    await expect(startRun(deps, personalRunContext(PERSON, body))).rejects.toMatchObject({ code: 'model_not_allowed', status: 400 })
    await expect(startRun(deps, personalRunContext(PERSON, StartRunBody.parse({ request: 'hello', model: { provider: 'openai' } })))).rejects.toMatchObject({ code: 'model_not_allowed' })
    expect(await count()).toBe(before)
    const allowed = await startRun(deps, personalRunContext(PERSON, StartRunBody.parse({ request: 'hello', model: { provider: 'offline', model: 'offline-rules-v1' } })))
    expect(allowed).toMatchObject({ status: 'succeeded', model: 'offline-rules-v1' })
    // Every model withdrawn: nothing may run on the surface.
    await setSurfaceModels(db, 'hub_chat', [{ provider: 'offline', model: 'offline-rules-v1', enabled: false }], FOUNDER)
    await expect(createRun(deps, await chatRunContext(db, PERSON, { request: 'hello' }))).rejects.toMatchObject({ code: 'no_model_allowed', status: 400 })
    await setSurfaceModels(db, 'hub_chat', [], FOUNDER)
  })

  it('keeps custom agents on their own list', async () => {
    const { db } = database()
    await setSurfaceModels(db, 'custom_agent', [{ provider: 'mistral', model: 'mistral-small-latest', enabled: true }], FOUNDER)
    const request = { surface: 'api' as const, actingUser: { id: null, email: PERSON.email, role: 'operator' as const }, agent: { codename: 'scribe', ownerEmail: PERSON.email }, regime: 'allowlist' as const, request: 'hello' }
    const run = await createRun(deps, request)
    expect(run.context).toMatchObject({ modelResolution: { mode: 'auto', candidates: [{ provider: 'mistral', model: 'mistral-small-latest' }] } })
    await expect(createRun(deps, { ...request, modelRequest: { provider: 'offline' } })).rejects.toMatchObject({ code: 'model_not_allowed' })
    await setSurfaceModels(db, 'custom_agent', [], FOUNDER)
  })
})

describe('the Auto rule', () => {
  const list = [
    { provider: 'offline' as const, model: 'offline-rules-v1' },
    { provider: 'anthropic' as const, model: 'claude-sonnet-4-6' },
    { provider: 'mistral' as const, model: 'mistral-large-latest' },
  ]
  it('takes the first available in the founder\'s order, offline last, cooling providers skipped', () => {
    const all = ['offline', 'anthropic', 'mistral'].map(provider => ({ provider, configured: true }))
    expect(autoOrder(list, all)[0]).toEqual(list[1])
    expect(autoOrder(list, all.map(p => (p.provider === 'anthropic' ? { ...p, coolingDown: true } : p)))[0]).toEqual(list[2])
    expect(autoOrder(list, [{ provider: 'offline', configured: true }])[0]).toEqual(list[0])
    // Nothing available: the founder's order, offline last (the call fails and says why).
    expect(autoOrder(list, [])).toEqual([list[1], list[2], list[0]])
  })
  it('refuses a named model outside the list and keeps an allowed one first', () => {
    const rows = list.map((entry, position) => ({ id: position, surface: 'hub_chat', ...entry, position, enabled: true, updatedBy: 'x', updatedAt: new Date() }))
    expect(() => resolveModel(rows, [], { request: { provider: 'openai' }, preference: null })).toThrow(/not among the models allowed/)
    expect(resolveModel(rows, [], { request: { provider: 'mistral' }, preference: null })).toMatchObject({ mode: 'request', first: list[2], candidates: [list[2], list[1], list[0]] })
  })
})
