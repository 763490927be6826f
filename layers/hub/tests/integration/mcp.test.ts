// MCP servers as tools (issue 35, Deliver 1) with servers no one here wrote — the reference
// server-everything over stdio (in bubblewrap) and over streamable HTTP, server-filesystem over
// stdio — driven by a custom agent through the engine and the scripted offline model: a READ
// tool runs and its result reaches the model fenced as untrusted data, a WRITE tool waits for
// approval then writes, an unclassified tool is refused without a call, a changed tool loses
// its class, a killed server is shown down then back up; the sandbox passes only the named
// variables, the HTTP allowlist and credential hold, a slow call times out, and what a spawn
// is given (mcpServersFor) follows the tenant and the agent's allowlist.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { spawnPorts } from '#layers/hub/core/spawn-ports'
import { TESTS_TMP } from '#tests/helpers/database-config'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { agentApprovals, agentRunSteps } from '#db/schema/agent-runs'
import { clients } from '#db/schema/clients'
import { hubUsers } from '#db/schema/hub'
import { mcpServers, mcpTools } from '#db/schema/mcp'
import { customRunContext } from '#layers/agents/core/custom/access'
import { ConfigBody, createCustomAgent } from '#layers/agents/core/custom/agents'
import { customToolRegistry } from '#layers/agents/core/custom/delegation'
import { decideApproval } from '#layers/agents/core/engine/actions'
import { startRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import { ServerBody } from '#layers/agents/core/mcp/config'
import { mcpServersFor } from '#layers/agents/core/mcp/launch'
import { provideMcpRuntime, type McpRuntime } from '#layers/agents/core/mcp/runtime'
import { classifyTool, saveServer, serversView } from '#layers/agents/core/mcp/store'
import { hubMcpRuntime } from '../../core/mcp-wiring'
import { EVERYTHING_BIN, everythingOverHttp, FILESYSTEM_BIN, type HttpPeer } from '../fixtures/mcp-servers'

const FOUNDER = { email: 'founder-mcp@studio.test', role: 'founder' as const }
const OWNER = { email: 'owner-mcp@studio.test', role: 'operator' as const }
const plan = (steps: unknown[]) => `Use the MCP tools.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describeOnBothDatabases('MCP servers as tools', (database) => {
  let dataDir = ''
  let served = ''
  let http: HttpPeer
  let runtime: McpRuntime
  let engine: EngineDeps
  const statuses: Array<[string, string]> = []

  beforeAll(async () => {
    const { db } = database()
    mkdirSync(TESTS_TMP, { recursive: true })
    dataDir = mkdtempSync(join(TESTS_TMP, 'mcp-'))
    served = join(dataDir, 'mcp', 'files', 'served')
    mkdirSync(served, { recursive: true })
    writeFileSync(join(served, 'brief.txt'), 'The client wants the invoices archived by Friday.\n')
    http = await everythingOverHttp()
    await db.insert(hubUsers).values([
      { email: FOUNDER.email, name: 'Founder', role: 'founder', passwordHash: 'x' },
      { email: OWNER.email, name: 'Owner', role: 'operator', passwordHash: 'x' },
    ])
    const env = {
      PATH: process.env.PATH, SPAWN_SANDBOX: 'bwrap', MCP_HTTP_ALLOWLIST: `${http.url},http://127.0.0.1:1/elsewhere`,
      MCP_NAMED: 'named-value', MCP_SECRET_NOT_NAMED: 'must-not-leak', MCP_TOKEN: 'token-for-http',
    }
    runtime = hubMcpRuntime({
      db,
      env,
      dataDir,
      log: () => {},
      backoff: { baseMs: 100, maxMs: 400, attempts: 6 },
      onChange: (server, status) => statuses.push([server, status]),
    })
    provideMcpRuntime(runtime)
    await saveServer(db, FOUNDER, ServerBody.parse({ name: 'everything', transport: 'stdio', command: 'node', args: [EVERYTHING_BIN, 'stdio'], envNames: ['MCP_NAMED'] }))
    await saveServer(db, FOUNDER, ServerBody.parse({ name: 'everything-http', transport: 'http', url: http.url, headerEnvName: 'MCP_TOKEN' }))
    await saveServer(db, FOUNDER, ServerBody.parse({ name: 'files', transport: 'stdio', command: 'node', args: [FILESYSTEM_BIN, served] }))
    await runtime.manager.start()
    for (const tool of ['echo', 'get-env', 'trigger-long-running-operation']) await classifyTool(db, FOUNDER, 'everything', tool, 'READ')
    await classifyTool(db, FOUNDER, 'everything-http', 'echo', 'READ')
    await classifyTool(db, FOUNDER, 'files', 'read_text_file', 'READ')
    await classifyTool(db, FOUNDER, 'files', 'write_file', 'WRITE')
    await runtime.refresh()
    engine = testEngineDeps(db, { registry: customToolRegistry() })
    await createCustomAgent(db, OWNER, {
      ...ConfigBody.parse({
        nickname: 'archivist', runsPerHour: 50,
        allowlist: { tools: ['mcp__everything__echo', 'mcp__everything-http__echo', 'mcp__everything__get-sum', 'mcp__files__read_text_file', 'mcp__files__write_file', 'mcp__everything__read_resource'] },
      }),
      codename: 'archivist',
    })
  }, 90_000)

  afterAll(async () => {
    provideMcpRuntime(null)
    await runtime?.manager.close()
    http?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  const run = async (steps: unknown[]) => await startRun(engine, await customRunContext(engine.db, engine.registry, { codename: 'archivist', request: plan(steps), trigger: 'autonomous', surface: 'automate' }))
  const steps = async (runId: string) => (await engine.db.select().from(agentRunSteps).where(and(eq(agentRunSteps.runId, runId), eq(agentRunSteps.kind, 'tool')))).sort((a, b) => a.seq - b.seq)

  it('lists each server\'s tools with their schema, up; resources and prompts become read tools; only classified tools are offered', async () => {
    const view = await serversView(database().db)
    expect(view.map(server => [server.name, server.status])).toEqual([['everything', 'up'], ['everything-http', 'up'], ['files', 'up']])
    const everything = view.find(server => server.name === 'everything')!
    expect(everything.tools.find(tool => tool.name === 'get-sum')).toMatchObject({ class: null, kind: 'tool', inputSchema: expect.objectContaining({ type: 'object' }) })
    expect(everything.tools.find(tool => tool.name === 'read_resource')).toMatchObject({ kind: 'resources', class: 'READ' })
    expect(everything.tools.find(tool => tool.name === 'get_prompt')).toMatchObject({ kind: 'prompts', class: 'READ' })
    expect(view.find(server => server.name === 'files')!.tools.map(tool => tool.name)).toContain('write_file')
    const offered = engine.registry.specs().map(spec => spec.name)
    expect(offered).toContain('mcp__everything__echo')
    expect(offered).not.toContain('mcp__everything__get-sum')
    expect(engine.registry.get('mcp__everything__get-sum')).toMatchObject({ unclassified: true })
  })

  it('a custom agent runs READ tools over stdio and HTTP (fenced as untrusted), is refused an unclassified one, waits for approval on a WRITE', async () => {
    const target = join(served, 'summary.txt')
    const started = await run([
      { calls: [
        { call: 'mcp__everything__echo', input: { message: 'hello over stdio' } },
        { call: 'mcp__everything-http__echo', input: { message: 'hello over http' } },
        { call: 'mcp__files__read_text_file', input: { path: join(served, 'brief.txt') } },
        { call: 'mcp__everything__get-sum', input: { a: 1, b: 2 } },
        { call: 'mcp__everything__read_resource', input: { uri: 'demo://resource/static/document/architecture.md' } },
        { call: 'mcp__files__write_file', input: { path: target, content: 'Archive the invoices by Friday.' } },
      ] },
      { answer: 'Done.' },
    ])
    expect(started.status).toBe('awaiting_approval')
    const [echo, echoHttp, read, sum, resource, write] = await steps(started.id)
    expect(echo).toMatchObject({ tool: 'mcp__everything__echo', toolClass: 'READ', status: 'ok', input: { message: 'hello over stdio' } })
    expect(echo!.output).toContain('Echo: hello over stdio')
    expect(echo!.output).toMatch(/^WARNING: everything between <<<UNTRUSTED_DATA_BEGIN_[0-9a-f]{24}>>>/)
    expect(echo!.output).toMatch(/<<<UNTRUSTED_DATA_END_[0-9a-f]{24}>>>$/)
    expect(echoHttp).toMatchObject({ status: 'ok', output: expect.stringContaining('Echo: hello over http') })
    expect(read).toMatchObject({ status: 'ok', output: expect.stringContaining('invoices archived by Friday') })
    expect(sum).toMatchObject({ tool: 'mcp__everything__get-sum', toolClass: null, status: 'denied', error: expect.stringMatching(/^unclassified_tool:/) })
    expect(resource).toMatchObject({ status: 'ok', toolClass: 'READ' })
    expect(write).toMatchObject({ tool: 'mcp__files__write_file', toolClass: 'WRITE', status: 'awaiting_approval' })
    expect(existsSync(target)).toBe(false)

    const [approval] = await engine.db.select().from(agentApprovals).where(eq(agentApprovals.runId, started.id))
    expect(approval).toMatchObject({ tool: 'mcp__files__write_file', askedOf: OWNER.email, status: 'pending' })
    const done = await decideApproval(engine, approval!.id, 'approve', OWNER)
    expect(done.status).toBe('succeeded')
    expect(readFileSync(target, 'utf8')).toBe('Archive the invoices by Friday.')
    expect((await steps(started.id))[5]).toMatchObject({ status: 'ok', output: expect.stringContaining('UNTRUSTED_DATA_BEGIN') })
  })

  it('passes a stdio server only the variables named for it; an HTTP server off the allowlist or without its credential stays down', async () => {
    const envText = JSON.stringify(await runtime.manager.callTool('everything', 'get-env', {}))
    expect(envText).toContain('named-value')
    expect(envText).not.toContain('must-not-leak')
    expect(envText).not.toContain('token-for-http')
    const { db } = database()
    await saveServer(db, FOUNDER, ServerBody.parse({ name: 'offlist', transport: 'http', url: 'http://127.0.0.1:1/elsewhere-not' }))
    expect(await runtime.manager.reconnect('offlist')).toBe('down')
    await saveServer(db, FOUNDER, ServerBody.parse({ name: 'nocred', transport: 'http', url: http.url, headerEnvName: 'MCP_ABSENT' }))
    expect(await runtime.manager.reconnect('nocred')).toBe('down')
    const rows = await db.select().from(mcpServers)
    expect(rows.find(row => row.name === 'offlist')!.lastError).toMatch(/^url_not_allowlisted/)
    expect(rows.find(row => row.name === 'nocred')!.lastError).toMatch(/^missing_credential: MCP_ABSENT/)
    for (const name of ['offlist', 'nocred']) await runtime.manager.disconnect(name)
    await db.delete(mcpServers).where(eq(mcpServers.name, 'offlist'))
    await db.delete(mcpServers).where(eq(mcpServers.name, 'nocred'))
  })

  it('a process that never started the servers (the agents-dispatch automate) connects one at its first call', async () => {
    const { db } = database()
    const lazy = hubMcpRuntime({ db, env: { PATH: process.env.PATH, SPAWN_SANDBOX: 'bwrap' }, dataDir, log: () => {} })
    try {
      const registry = await lazy.refresh()
      expect(registry.get('mcp__everything__echo')).toMatchObject({ class: 'READ' })
      expect(lazy.manager.status('everything')).toBe('down')
      const outcome = await registry.get('mcp__everything__echo')!.run({ message: 'lazy' }, { ports: engine.ports, actor: 'test', runId: 'lazy' })
      expect(outcome.output).toContain('Echo: lazy')
      expect(lazy.manager.status('everything')).toBe('up')
      expect(lazy.manager.status('files')).toBe('down')
    }
    finally {
      await lazy.manager.close()
    }
  })

  it('abandons a call past its timeout', async () => {
    await expect(runtime.manager.callTool('everything', 'trigger-long-running-operation', { duration: 5, steps: 5 }, 300)).rejects.toThrow(/timed out/i)
  })

  it('a tool whose schema changed is unclassified again on the next listing, and refused', async () => {
    const { db } = database()
    await db.update(mcpTools).set({ schemaHash: '0'.repeat(64) }).where(and(eq(mcpTools.server, 'everything-http'), eq(mcpTools.name, 'echo')))
    expect(await runtime.manager.reconnect('everything-http')).toBe('up')
    await runtime.refresh()
    const [row] = await db.select().from(mcpTools).where(and(eq(mcpTools.server, 'everything-http'), eq(mcpTools.name, 'echo')))
    expect(row).toMatchObject({ class: null, classifiedBy: null })
    const refused = await run([{ call: 'mcp__everything-http__echo', input: { message: 'again' } }, { answer: 'Done.' }])
    expect((await steps(refused.id))[0]).toMatchObject({ status: 'denied', error: expect.stringMatching(/^unclassified_tool:/) })
  })

  it('a killed stdio server is shown down, restarted with backoff, then up, and its tools work again', async () => {
    const pid = runtime.manager.pid('everything')
    expect(pid).toBeGreaterThan(0)
    statuses.length = 0
    process.kill(pid!, 'SIGKILL')
    await vi.waitFor(() => expect(statuses.filter(([server]) => server === 'everything').map(([, status]) => status)).toEqual(['down', 'restarting', 'up']), { timeout: 20_000, interval: 100 })
    const [row] = await database().db.select().from(mcpServers).where(eq(mcpServers.name, 'everything'))
    expect(row).toMatchObject({ status: 'up', restarts: 1, lastError: null })
    await runtime.refresh()
    const again = await run([{ call: 'mcp__everything__echo', input: { message: 'back' } }, { answer: 'Done.' }])
    expect((await steps(again.id))[0]).toMatchObject({ status: 'ok', output: expect.stringContaining('Echo: back') })
  })

  it('mcpServersFor gives a spawn the enabled servers its client and its agent allow, with their classified tools only', async () => {
    const { db } = database()
    const [client] = await db.insert(clients).values({ slug: 'mcp-client', name: 'MCP client' }).returning({ id: clients.id })
    await db.update(mcpServers).set({ tenants: [client!.id] }).where(eq(mcpServers.name, 'files'))
    const any = await mcpServersFor(db, { agent: null, tenant: null })
    // everything-http keeps its resources and prompts (READ by nature); its echo lost its class above.
    expect(any.map(server => server.name)).toEqual(['everything', 'everything-http'])
    expect(any[1]!.tools.map(tool => tool.name).sort()).toEqual(['get_prompt', 'read_resource'])
    expect(any[0]).toMatchObject({ transport: 'stdio', command: 'node', envNames: ['MCP_NAMED'] })
    expect(any[0]!.tools.map(tool => tool.name).sort()).toEqual(['echo', 'get-env', 'get_prompt', 'read_resource', 'trigger-long-running-operation'])
    const forClient = await mcpServersFor(db, { agent: 'archivist', tenant: client!.id })
    expect(forClient.map(server => [server.name, server.tools])).toEqual([
      ['everything', [{ name: 'echo', class: 'READ' }, { name: 'read_resource', class: 'READ' }]],
      ['files', [{ name: 'read_text_file', class: 'READ' }, { name: 'write_file', class: 'WRITE' }]],
    ])
    expect(JSON.stringify(forClient)).not.toContain('named-value')
    // Through the spawn's port, as a spawn for that client asks: a list may name the client by its slug too.
    await db.update(mcpServers).set({ tenants: ['mcp-client'] }).where(eq(mcpServers.name, 'files'))
    const launched = await spawnPorts.mcpServers!({ db, agent: 'archivist', tenant: { id: client!.id, slug: 'mcp-client' } })
    expect(launched.map(server => server.name)).toEqual(['everything', 'files'])
    // The sandbox shows a stdio server the package it runs from and the folders it names.
    expect(launched[1]!.readPaths).toEqual([expect.stringMatching(/node_modules$/), dirname(served)])
    expect(await spawnPorts.mcpServers!({ db, agent: 'archivist', tenant: null })).toHaveLength(1)
  })
})
