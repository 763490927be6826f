// The real Claude Code CLI, spawned by the engine in srt's sandbox, given the MCP servers its
// agent and client allow (issue 35, deliverable 2): a real server no one here wrote
// (@modelcontextprotocol/server-everything, over stdio) behind the spawn's gate, against a
// scripted loopback Anthropic API. The registry (the port) offers two servers: `everything`
// with two READ tools, a WRITE one and an EXTERNAL_WRITE one without a standing approval,
// and `vault-writer` with only a WRITE tool. The CLI's configuration holds `everything` alone;
// the model is offered its two READ tools and no other of its tools (withheld or never
// classified); the READ tool answers through the sandbox; the configuration file is gone
// when the agent has ended.
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawnEvents } from '#db/schema/atlas-spawn'
import { startFakeAnthropic, type FakeAnthropic } from '#layers/atlas/tests/fakes/anthropic'
import type { McpServerLaunch } from '#layers/spawn/core/mcp'
import { seedAgents } from '#layers/agents/core/seed'
import { startEngine, type Engine } from '../fixtures/engine'
import { classifiedMessage, spawnsOf } from '../fixtures/seed'

const require = createRequire(import.meta.url)
const CLAUDE = join(dirname(require.resolve('@anthropic-ai/claude-code-linux-x64/package.json')), 'claude')
const EVERYTHING = realpathSync(join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js'))
// The server's package and its dependencies, shown read-only inside the sandbox.
const NODE_MODULES = realpathSync(join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), '..', '..'))

const SERVERS: McpServerLaunch[] = [
  {
    name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], readPaths: [NODE_MODULES],
    tools: [{ name: 'echo', class: 'READ' }, { name: 'get-sum', class: 'READ' }, { name: 'get-env', class: 'WRITE' }, { name: 'get-tiny-image', class: 'EXTERNAL_WRITE' }],
  },
  { name: 'vault-writer', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], readPaths: [NODE_MODULES], tools: [{ name: 'echo', class: 'WRITE' }] },
]

interface OfferedRequest { tools?: Array<{ name: string }> }

describeOnBothDatabases('The real Claude Code CLI given its MCP servers', (database) => {
  let engine: Engine
  let api: FakeAnthropic
  const asked: Array<{ agent: string, tenant: { id: string, slug: string } | null }> = []
  beforeAll(async () => {
    // The roster: the spawn is routed to an agent, whose servers the registry is asked for.
    await seedAgents(database().db)
    api = await startFakeAnthropic([
      () => [{ type: 'tool_use', name: 'mcp__everything__echo', input: { message: 'hello through the gate' } }],
      () => [{ type: 'tool_use', name: 'Bash', input: {
        // What the CLI was configured with, read inside the sandbox, next to the result file.
        command: 'out=$(dirname "$ATLAS_RESULT_FILE") && cp "$(dirname "$out")/mcp.json" "$out/mcp-seen.json" && '
          + 'printf \'{"status":"ok","routes":[],"commits":[],"summary":"Echoed through MCP."}\' > "$ATLAS_RESULT_FILE" && echo written',
        description: 'Keep the MCP configuration and write the result file',
      } }],
      () => [{ type: 'text', text: 'Done.' }],
    ])
    engine = await startEngine(database().db, database().url, {
      SPAWN_SANDBOX: 'srt', SPAWN_AGENT_BIN: CLAUDE, SPAWN_PERMISSION_MODE: 'bypassPermissions',
      ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-api03-mcp-test',
      SPAWN_AGENT_ENV_PASS: 'DISABLE_TELEMETRY,DISABLE_AUTOUPDATER,DISABLE_ERROR_REPORTING',
      DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1', SPAWN_TIMEOUT_SEC: '120', SPAWN_KEEP_WORKDIR: 'always',
    })
  }, 120_000)
  afterAll(async () => {
    await engine?.close()
    await api?.close()
  })

  it('configures the allowed server only, offers its READ tools only, and the READ tool answers', async () => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question', subject: 'Un écho' })
    await engine.cycle()
    await engine.drain({ mcpServers: async ({ agent, tenant }) => {
      asked.push({ agent, tenant })
      return SERVERS
    } })
    const [spawn] = await spawnsOf(db, id)
    expect(spawn, JSON.stringify(spawn?.reason)).toMatchObject({ status: 'succeeded', outcome: 'actioned', resultSource: 'file' })
    // Asked for the routed agent.
    expect(asked).toEqual([{ agent: expect.stringMatching(/^[a-z0-9-]+$/), tenant: null }])

    // The CLI's configuration, as the agent read it inside: one server, behind the gate.
    const folder = join(engine.spawnRoot, `spawn-${spawn!.id}`)
    const seen = JSON.parse(readFileSync(join(folder, 'out', 'mcp-seen.json'), 'utf8')) as { mcpServers: Record<string, { command: string, args: string[] }> }
    expect(Object.keys(seen.mcpServers)).toEqual(['everything'])
    const args = seen.mcpServers.everything!.args
    expect(args).toContain('--allow=["echo","get-sum"]')
    expect(args.slice(args.indexOf('--') + 1)).toEqual([process.execPath, EVERYTHING, 'stdio'])
    // Never in the work folder, and gone once the agent ended.
    expect(existsSync(join(folder, 'work', 'mcp.json'))).toBe(false)
    expect(existsSync(join(folder, 'mcp.json'))).toBe(false)

    // What the model was offered: the two READ tools, none of the others. The CLI may defer
    // MCP tools behind its tool search (named in the request's text, loaded on demand) or list
    // them with the tools: every MCP tool name anywhere in a request is one of the two.
    const loop = api.requests.filter(r => r.agentLoop && r.stream)
    expect(loop.length).toBeGreaterThanOrEqual(3)
    for (const request of loop) {
      const named = [...new Set(request.body.match(/mcp__[\w-]+/g) ?? [])].sort()
      expect(named).toEqual(['mcp__everything__echo', 'mcp__everything__get-sum'])
      const listed = ((JSON.parse(request.body) as OfferedRequest).tools ?? []).map(tool => tool.name).filter(name => name.startsWith('mcp__'))
      expect(listed.every(name => named.includes(name))).toBe(true)
    }
    // The READ tool ran in the sandbox and its answer reached the model and the event log.
    expect(loop.some(r => r.body.includes('Echo: hello through the gate'))).toBe(true)
    const events = await db.select().from(atlasSpawnEvents).where(eq(atlasSpawnEvents.spawnId, spawn!.id)).orderBy(atlasSpawnEvents.seq)
    expect(JSON.stringify(events.filter(e => e.eventType === 'tool_result').map(e => e.payload))).toContain('Echo: hello through the gate')
    // The withheld tools were named in the worker's log.
    expect(engine.logs.join('\n')).toMatch(/MCP tool everything\/get-env withheld: WRITE/)
    expect(engine.logs.join('\n')).toMatch(/MCP server vault-writer left out/)
  }, 240_000)
})
