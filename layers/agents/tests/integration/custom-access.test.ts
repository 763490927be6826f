// Allowlist access and delegation on both databases (issue 21 Deliver 8–9, seed 003 P3,
// §12.7, §16.1): an agent with an empty allowlist reads nothing; one tenant granted reads
// that tenant's messages only; a delegated child runs under its own allowlist and cannot read
// what only its parent may; depth 4 is refused at the default cap. Real engine runs (offline
// model following a scripted plan), real tools reading the Atlas tables.
import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '../../../../tests/helpers/databases'
import { agentRuns } from '../../../../db/schema/agent-runs'
import { hubUsers } from '../../../../db/schema/hub'
import { createAiFacade } from '../../../ai/core/facade'
import { hubToolPorts } from '../../../atlas/core/agent-ports'
import { classifiedMessage, createTenant } from '../../../atlas/tests/fixtures/spawn/seed'
import { offlineEmbedder } from '../../../memory/tests/fixtures/embedders'
import { customRunContext, DELEGATE_TOOL } from '../../core/custom/access'
import { ConfigBody, createCustomAgent } from '../../core/custom/agents'
import { customToolRegistry, delegatePort } from '../../core/custom/delegation'
import { parseRunContext, startRun, type EngineDeps } from '../../core/engine/loop'
import { runSteps } from '../../core/engine/store'

const OWNER = { email: 'owner-access@studio.test', role: 'operator' as const }
const plan = (steps: unknown[]) => `Look at the invoices.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``
const search = plan([{ call: 'search_atlas_messages', input: { query: 'Invoice', limit: 20 } }, { answer: 'Done.' }])

describeOnBothDatabases('custom agent access', (database) => {
  let engine: EngineDeps
  let tenantA = ''
  let messageB = 0

  const agent = async (codename: string, allowlist: { tools?: string[], tenants?: string[] }, extra: Record<string, unknown> = {}) =>
    await createCustomAgent(database().db, OWNER, { ...ConfigBody.parse({ nickname: codename, allowlist: { tools: allowlist.tools ?? [], tenants: allowlist.tenants ?? [] }, ...extra }), codename })
  const run = async (codename: string, request: string) =>
    await startRun(engine, await customRunContext(engine.db, engine.registry, { codename, request, trigger: 'autonomous', surface: 'automate' }))
  const toolSteps = async (runId: string) => (await runSteps(engine.db, runId)).filter(step => step.kind === 'tool')

  beforeAll(async () => {
    const { db } = database()
    await db.insert(hubUsers).values({ email: OWNER.email, name: 'Owner', role: 'operator', passwordHash: 'x' })
    const ai = createAiFacade({ env: { AI_OFFLINE: '1' }, db, log: () => {} })
    engine = {
      db,
      chat: request => ai.chatWithTools(request),
      flushLedger: () => ai.flush(),
      registry: customToolRegistry(),
      ports: hubToolPorts({ db, embedder: offlineEmbedder(db), vaultDir: '/nonexistent', team: [], mailer: () => { throw new Error('no mail in this test') } }),
      providers: () => ai.providers(),
      log: () => {},
    }
    engine.ports = { ...engine.ports, delegate: delegatePort(() => engine) }
    tenantA = (await createTenant(db)).id
    const tenantB = (await createTenant(db)).id
    await classifiedMessage(db, { tenantId: tenantA, subject: 'Invoice for tenant A' })
    messageB = await classifiedMessage(db, { tenantId: tenantB, subject: 'Invoice for tenant B' })
  })

  it('reads nothing with an empty allowlist', async () => {
    await agent('empty-reader', {})
    const result = await run('empty-reader', search)
    // No tool is even offered to the model: whatever it asks for, nothing is read.
    expect((result.context as { allowlist: string[] }).allowlist).toEqual([])
    const steps = await toolSteps(result.id)
    expect(steps.filter(step => step.status === 'ok')).toEqual([])
    expect(steps.flatMap(step => step.sources)).toEqual([])
    // Granting the tool without any tenant still reads nothing: tenants are granted one by one.
    await agent('tool-only-reader', { tools: ['search_atlas_messages'] })
    const [empty] = await toolSteps((await run('tool-only-reader', search)).id)
    expect(empty).toMatchObject({ status: 'ok', sources: [] })
  })

  it('reads the one granted tenant only', async () => {
    await agent('tenant-a-reader', { tools: ['search_atlas_messages', 'read_atlas_message'], tenants: [tenantA] })
    const [step] = await toolSteps((await run('tenant-a-reader', search)).id)
    expect(step!.status).toBe('ok')
    expect(step!.output).toContain('Invoice for tenant A')
    expect(step!.output).not.toContain('tenant B')
    const [read] = await toolSteps((await run('tenant-a-reader', plan([{ call: 'read_atlas_message', input: { id: messageB } }, { answer: 'Done.' }]))).id)
    expect(read).toMatchObject({ tool: 'read_atlas_message', status: 'error' })
    expect(read!.error).toContain(`no message ${messageB}`)
  })

  it('runs a delegated child under its own allowlist, not its parent\'s', async () => {
    await agent('parent-bot', { tools: ['search_atlas_messages'], tenants: [tenantA] }, { canDelegate: true })
    await agent('child-bot', { tools: ['search_atlas_messages'] })
    const parentContext = await customRunContext(engine.db, engine.registry, { codename: 'parent-bot', request: plan([{ answer: 'ok' }]), trigger: 'autonomous', surface: 'automate' })
    expect(parentContext.allowlist).toContain(DELEGATE_TOOL)
    const childContext = await customRunContext(engine.db, engine.registry, { codename: 'child-bot', request: 'x', trigger: 'autonomous', surface: 'automate' })
    expect(childContext.allowlist).not.toContain(DELEGATE_TOOL)

    const parent = await startRun(engine, parentContext)
    const child = await engine.ports.delegate!({ codename: 'child-bot', request: search, context: 'tenant A matters' }, { runId: parent.id, context: parseRunContext(parentContext) })
    const [row] = await engine.db.select().from(agentRuns).where(eq(agentRuns.id, child.runId))
    expect(row).toMatchObject({ parentRunId: parent.id, agent: 'child-bot', regime: 'allowlist' })
    expect((row!.context as { depth: number }).depth).toBe(1)
    const [step] = await toolSteps(child.runId)
    expect(step).toMatchObject({ status: 'ok', sources: [] })
    expect(step!.output).not.toContain('tenant A')
  })

  it('refuses depth 4 at the default cap of 3', async () => {
    await agent('deep-parent', { tools: [] }, { canDelegate: true })
    await agent('deep-child', { tools: [] })
    const base = parseRunContext(await customRunContext(engine.db, engine.registry, { codename: 'deep-parent', request: plan([{ answer: 'ok' }]), trigger: 'autonomous', surface: 'automate' }))
    const parent = await startRun(engine, base)
    const atDepth = (depth: number) => ({ runId: parent.id, context: { ...base, depth } })
    const three = await engine.ports.delegate!({ codename: 'deep-child', request: plan([{ answer: 'third level' }]), context: '' }, atDepth(2))
    const [third] = await engine.db.select().from(agentRuns).where(eq(agentRuns.id, three.runId))
    expect(third).toMatchObject({ parentRunId: parent.id, status: 'succeeded' })
    expect((third!.context as { depth: number }).depth).toBe(3)
    await expect(engine.ports.delegate!({ codename: 'deep-child', request: 'go deeper', context: '' }, atDepth(3))).rejects.toMatchObject({ code: 'depth_exceeded' })
    // The delegate tool refuses it to the model as a step error, not a crash.
    const viaTool = await startRun(engine, { ...base, depth: 3, request: plan([{ call: DELEGATE_TOOL, input: { codename: 'deep-child', request: 'deeper' } }, { answer: 'Refused.' }]) })
    const [step] = await toolSteps(viaTool.id)
    expect(step).toMatchObject({ tool: DELEGATE_TOOL, status: 'error' })
    expect(step!.error).toContain('depth')
  })
})
