// Allowlist access and delegation on both databases (issue 21 Deliver 8–9, seed 003 P3,
// §12.7, §16.1): an agent with an empty allowlist reads nothing; one tenant granted reads
// that tenant's rows only — through EVERY read tool (memory recall, vault notes, worksites,
// Atlas, briefings); a delegated child runs under its own allowlist and cannot read what only
// its parent may; depth 4 is refused at the default cap; the studio policy a founder sets
// removes a tool from a run even when allowlisted. Real engine runs (offline model following
// a scripted plan), real tools reading the memory, worksites and Atlas tables.
import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { agentRuns } from '#db/schema/agent-runs'
import { hubUsers } from '#db/schema/hub'
import { memNotes } from '#db/schema/mem'
import { classifiedMessage, createTenant } from '#layers/spawn/tests/fixtures/seed'
import { upsertEmbeddings } from '#layers/memory/core/vectors/store'
import { offlineEmbedder } from '#layers/memory/tests/fixtures/embedders'
import { createChantier, createJob, createTask } from '#layers/worksites/core/items'
import { createProject } from '#layers/worksites/core/projects'
import { saveStudioPolicy } from '../../core/custom/studio-policy'
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
  let messageA = 0
  let messageB = 0
  const tasks: Record<'a' | 'b' | 'studio', string> = { a: '', b: '', studio: '' }
  /** Every READ tool the registry has. */
  const READ_TOOLS = ['recall_memory', 'read_vault_note', 'search_worksites', 'read_work_item', 'search_atlas_messages', 'read_atlas_message', 'read_agent_briefing']

  const agent = async (codename: string, allowlist: { tools?: string[], tenants?: string[] }, extra: Record<string, unknown> = {}) =>
    await createCustomAgent(database().db, OWNER, {
      ...ConfigBody.parse({ nickname: codename, allowlist: { tools: allowlist.tools ?? [], tenants: allowlist.tenants ?? [] }, ...extra }),
      codename,
    })
  const run = async (codename: string, request: string) =>
    await startRun(engine, await customRunContext(engine.db, engine.registry, { codename, request, trigger: 'autonomous', surface: 'automate' }))
  const toolSteps = async (runId: string) => (await runSteps(engine.db, runId)).filter(step => step.kind === 'tool')

  beforeAll(async () => {
    const { db } = database()
    await db.insert(hubUsers).values({ email: OWNER.email, name: 'Owner', role: 'operator', passwordHash: 'x' })
    engine = testEngineDeps(db, { registry: customToolRegistry() })
    engine.ports = { ...engine.ports, delegate: delegatePort(() => engine) }
    const a = await createTenant(db)
    const b = await createTenant(db)
    tenantA = a.id
    messageA = await classifiedMessage(db, { tenantId: tenantA, subject: 'Invoice for tenant A' })
    messageB = await classifiedMessage(db, { tenantId: b.id, subject: 'Invoice for tenant B' })
    // Memory: a chunk and a note of each tenant, and a shared (tenant-less) chunk.
    const embedder = offlineEmbedder(db)
    const chunks = [
      { id: 'clients/a.md', tenant: a.slug, text: 'Quokkafile of tenant A: the secret of tenant A.' },
      { id: 'clients/b.md', tenant: b.slug, text: 'Quokkafile of tenant B: the secret of tenant B.' },
      { id: 'permanent/shared.md', tenant: null, text: 'Quokkafile shared by the whole studio.' },
    ]
    const { vectors, model } = await embedder.embed(chunks.map(chunk => chunk.text), 'document')
    await upsertEmbeddings(db, chunks.map((chunk, i) => ({
      sourceType: 'note', sourceId: chunk.id, title: `Quokkafile ${chunk.tenant ?? 'shared'}`, content: chunk.text, fingerprint: createHash('sha256').update(chunk.text).digest('hex'),
      provider: 'offline', model, embedding: vectors[i]!, agent: null, tenant: chunk.tenant, metadata: {},
    })))
    await db.insert(memNotes).values(chunks.map(chunk => ({ path: chunk.id, space: 'permanent' as const, title: chunk.id, body: chunk.text, size: chunk.text.length, tenant: chunk.tenant, fileModifiedAt: new Date() })))
    // Worksites: a project (chantier, job, task) of each tenant and one of the studio's own.
    for (const [key, tenantId] of [['a', a.id], ['b', b.id], ['studio', null]] as const) {
      const project = await createProject(db, { name: `Quokkasite ${key}`, tenantId }, 'test')
      const chantier = await createChantier(db, { projectId: project.id, title: `Quokkasite chantier ${key}`, brief: '' }, 'test')
      const job = await createJob(db, { chantierId: chantier.id, title: `Quokkasite job ${key}`, description: '' }, 'test')
      tasks[key] = (await createTask(db, { jobId: job.id, title: `Quokkasite task ${key}`, description: '' }, 'test')).id
    }
  })

  /** Every read tool, each asked for tenant A's and tenant B's rows. */
  const everyRead = (codename: string) => plan([
    { call: 'recall_memory', input: { query: 'Quokkafile secret', k: 10 } },
    { call: 'read_vault_note', input: { path: 'clients/a.md' } },
    { call: 'read_vault_note', input: { path: 'permanent/shared.md' } },
    { call: 'search_worksites', input: { query: 'Quokkasite', limit: 20 } },
    { call: 'read_work_item', input: { id: tasks.a } },
    { call: 'read_work_item', input: { id: tasks.b } },
    { call: 'read_work_item', input: { id: tasks.studio } },
    { call: 'search_atlas_messages', input: { query: 'Invoice', limit: 20 } },
    { call: 'read_atlas_message', input: { id: messageA } },
    { call: 'read_agent_briefing', input: { codename, task: 'Quokkafile secret' } },
    { answer: 'Done.' },
  ])
  const readAll = async (codename: string) => {
    const steps = await toolSteps((await startRun(engine, { ...await customRunContext(engine.db, engine.registry, { codename, request: everyRead(codename), trigger: 'autonomous', surface: 'automate' }), budget: { iterations: 20 } })).id)
    return Object.fromEntries(['recall', 'noteA', 'noteShared', 'search', 'taskA', 'taskB', 'taskStudio', 'messages', 'messageA', 'briefing'].map((key, i) => [key, steps[i]!]))
  }

  it('reads nothing tenant-specific through any read tool with no tenant granted (only the shared rows)', async () => {
    await agent('all-reads-no-tenant', { tools: READ_TOOLS })
    const read = await readAll('all-reads-no-tenant')
    const everything = JSON.stringify(Object.values(read).map(step => [step.output, step.sources]))
    expect(everything).not.toMatch(/tenant A|tenant B|Quokkasite (task|job|chantier) [ab]\b/)
    expect(read.recall!.output).toContain('shared by the whole studio')
    expect(read.noteA).toMatchObject({ status: 'error' })
    expect(read.noteShared).toMatchObject({ status: 'ok' })
    expect(read.search!.output).toContain('Quokkasite task studio')
    expect(read.taskA).toMatchObject({ status: 'error' })
    expect(read.taskB).toMatchObject({ status: 'error' })
    expect(read.taskStudio).toMatchObject({ status: 'ok' })
    expect(read.messages).toMatchObject({ status: 'ok', sources: [] })
    expect(read.messageA).toMatchObject({ status: 'error' })
    expect(read.briefing).toMatchObject({ status: 'ok' })
  })

  it('reads the granted tenant\'s rows (and the shared ones) through every read tool, never another tenant\'s', async () => {
    await agent('all-reads-tenant-a', { tools: READ_TOOLS, tenants: [tenantA] })
    const read = await readAll('all-reads-tenant-a')
    const everything = JSON.stringify(Object.values(read).map(step => [step.output, step.sources]))
    expect(everything).not.toMatch(/tenant B|Quokkasite (task|job|chantier) b\b/)
    expect(read.recall!.output).toContain('secret of tenant A')
    expect(read.noteA).toMatchObject({ status: 'ok' })
    expect(read.search!.output).toContain('Quokkasite task a')
    expect(read.taskA).toMatchObject({ status: 'ok' })
    expect(read.taskB).toMatchObject({ status: 'error' })
    expect(read.messages!.output).toContain('Invoice for tenant A')
    expect(read.messageA).toMatchObject({ status: 'ok' })
  })

  it('removes a tool the studio policy leaves out from a run, even allowlisted; a founder sets it, no one else', async () => {
    const founder = { email: 'founder-policy@studio.test', role: 'founder' as const }
    await agent('policy-bound', { tools: ['recall_memory', 'search_worksites'] })
    await expect(saveStudioPolicy(engine.db, engine.registry, OWNER, { tools: ['search_worksites'] })).rejects.toMatchObject({ status: 403, code: 'forbidden' })
    await expect(saveStudioPolicy(engine.db, engine.registry, founder, { tools: ['no_such_tool'] })).rejects.toMatchObject({ status: 400, code: 'unknown_tools' })
    await saveStudioPolicy(engine.db, engine.registry, founder, { tools: READ_TOOLS.filter(tool => tool !== 'recall_memory') })
    try {
      const context = await customRunContext(engine.db, engine.registry, { codename: 'policy-bound', request: plan([{ call: 'recall_memory', input: { query: 'Quokkafile' } }, { answer: 'Done.' }]), trigger: 'autonomous', surface: 'automate' })
      expect(context.allowlist).toEqual(['search_worksites'])
      const [step] = await toolSteps((await startRun(engine, context)).id)
      expect(step).toMatchObject({ tool: 'recall_memory', status: 'denied' })
      expect(step!.error).toContain('not in this agent\'s allowlist')
    }
    finally {
      await saveStudioPolicy(engine.db, engine.registry, founder, { tools: null })
    }
    expect((await customRunContext(engine.db, engine.registry, { codename: 'policy-bound', request: 'x', trigger: 'autonomous', surface: 'automate' })).allowlist).toEqual(['recall_memory', 'search_worksites'])
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
    // Not through memory or worksites either: the child's (empty) tenants, not its parent's.
    await agent('child-reader', { tools: READ_TOOLS })
    const reader = await engine.ports.delegate!({ codename: 'child-reader', request: everyRead('child-reader'), context: '' }, { runId: parent.id, context: parseRunContext(parentContext) })
    const childSteps = await toolSteps(reader.runId)
    expect(childSteps.length).toBeGreaterThan(3)
    expect(JSON.stringify(childSteps.map(s => [s.output, s.sources]))).not.toMatch(/tenant A|Quokkasite (task|job|chantier) a\b/)
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
