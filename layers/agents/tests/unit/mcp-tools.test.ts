// MCP tools as the engine sees them (issue 35): the HTTP allowlist stops at path boundaries,
// tool names are safe for every provider, a schema hash changes with the description or the
// schema (not with key order), an unclassified tool is refused by the policy and never offered,
// an MCP WRITE asks, a result is cut before it is fenced, and the extended registry lets a
// built-in name win over a server's.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { McpServerRow, McpToolRow } from '#db/schema/mcp'
import { checkPolicy } from '../../core/engine/policy'
import { createToolRegistry, defineTool } from '../../core/engine/tools'
import { mcpToolName, readHttpAllowlist, schemaHash, ServerBody, urlAllowed } from '../../core/mcp/config'
import { extendRegistry, mcpRegistry, resultText, type McpToolDeps } from '../../core/mcp/tools'

const server = { name: 'files', enabled: true, tenants: null } as McpServerRow
const row = (name: string, toolClass: string | null): McpToolRow => ({
  server: 'files', name, kind: 'tool', description: `${name} tool`, inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  schemaHash: 'h', class: toolClass, classifiedBy: null, classifiedAt: null, present: true, seenAt: new Date(),
})
const fence = () => ({ line: (value: string) => value, block: (what: string, lines: string[]) => [`BEGIN ${what}`, ...lines, 'END'] })
const answering = (text: string): McpToolDeps => ({
  fence,
  manager: { callTool: async () => ({ content: [{ type: 'text', text }] }), readResource: async () => ({ contents: [] }), getPrompt: async () => ({ messages: [] }) },
  resultChars: 10,
})
const policy = (tool: ReturnType<typeof mcpRegistry>['get'] extends (n: string) => infer T ? T : never, name: string) =>
  checkPolicy({ name, tool, regime: 'allowlist', role: 'operator', allowlist: [name], standing: false })

describe('MCP configuration', () => {
  it('allows a URL only under an allowlisted prefix, at a path boundary', () => {
    const allowlist = readHttpAllowlist({ MCP_HTTP_ALLOWLIST: 'http://127.0.0.1:3001/mcp, https://mcp.example.com' })
    expect(urlAllowed('http://127.0.0.1:3001/mcp', allowlist)).toBe(true)
    expect(urlAllowed('http://127.0.0.1:3001/mcp/sub?x=1', allowlist)).toBe(true)
    expect(urlAllowed('https://mcp.example.com/any', allowlist)).toBe(true)
    expect(urlAllowed('http://127.0.0.1:3001/mcpevil', allowlist)).toBe(false)
    expect(urlAllowed('http://127.0.0.1:30011/mcp', allowlist)).toBe(false)
    expect(urlAllowed('https://mcp.example.com.evil.test/', allowlist)).toBe(false)
    expect(urlAllowed('https://user@mcp.example.com@evil.test/', allowlist)).toBe(false)
    expect(urlAllowed('not a url', allowlist)).toBe(false)
    expect(urlAllowed('http://127.0.0.1:3001/mcp', readHttpAllowlist({}))).toBe(false)
  })

  it('names tools safely, hashes schemas regardless of key order, and checks bodies', () => {
    expect(mcpToolName('files', 'read file.v2')).toBe('mcp__files__read_file_v2')
    expect(mcpToolName('s', 'x'.repeat(100))).toHaveLength(64)
    expect(schemaHash('d', { a: 1, b: { c: 2, d: 3 } })).toBe(schemaHash('d', { b: { d: 3, c: 2 }, a: 1 }))
    expect(schemaHash('d', { a: 1 })).not.toBe(schemaHash('changed', { a: 1 }))
    expect(ServerBody.safeParse({ name: 'x', transport: 'stdio' }).success).toBe(false)
    expect(ServerBody.safeParse({ name: 'x', transport: 'http', url: 'file:///etc/passwd' }).success).toBe(false)
    expect(ServerBody.safeParse({ name: 'x', transport: 'stdio', command: 'node', envNames: ['lower'] }).success).toBe(false)
    expect(ServerBody.safeParse({ name: 'Bad Name', transport: 'stdio', command: 'node' }).success).toBe(false)
  })
})

describe('MCP tools in the engine', () => {
  const registry = mcpRegistry(answering('0123456789abcdef'), [server], [row('read_text_file', 'READ'), row('write_file', 'WRITE'), row('move_file', null), { ...row('gone', 'READ'), present: false }])

  it('refuses an unclassified tool and never offers it; an MCP WRITE waits for approval', () => {
    expect(registry.list().map(tool => tool.name)).toEqual(['mcp__files__read_text_file', 'mcp__files__write_file', 'mcp__files__move_file'])
    expect(registry.specs().map(spec => spec.name)).toEqual(['mcp__files__read_text_file', 'mcp__files__write_file'])
    expect(registry.specs(['mcp__files__move_file'])).toEqual([])
    expect(registry.specs(['mcp__files__read_text_file'])[0]!.inputSchema).toEqual(row('x', null).inputSchema)
    expect(policy(registry.get('mcp__files__move_file'), 'mcp__files__move_file')).toMatchObject({ kind: 'deny', code: 'unclassified_tool' })
    expect(policy(registry.get('mcp__files__write_file'), 'mcp__files__write_file')).toEqual({ kind: 'ask' })
    expect(policy(registry.get('mcp__files__read_text_file'), 'mcp__files__read_text_file')).toEqual({ kind: 'allow' })
  })

  it('cuts a result at the cap before fencing it, and reads every kind of content', async () => {
    const outcome = await registry.get('mcp__files__read_text_file')!.run({ path: '/x' }, { ports: {} as never, actor: 'a', runId: 'r' })
    expect(outcome.output).toBe('BEGIN the answer of read_text_file on the MCP server files, a third party\n0123456789\n[result cut at 10 characters]\nEND')
    expect(resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }] })).toBe('a\n[image image/png, 3 bytes]')
    expect(resultText({ structuredContent: { sum: 3 } })).toBe('{"sum":3}')
  })

  it('refuses a run whose clients the server does not serve', async () => {
    const scoped = mcpRegistry(answering('ok'), [{ ...server, tenants: ['11111111-1111-4111-8111-111111111111'] }], [row('read_text_file', 'READ')])
    const tool = scoped.get('mcp__files__read_text_file')!
    expect(await tool.guard!({}, { ports: {} as never, actor: 'a', runId: 'r', tenants: ['22222222-2222-4222-8222-222222222222'] })).toMatch(/does not serve/)
    expect(await tool.guard!({}, { ports: {} as never, actor: 'a', runId: 'r', tenants: [] })).toMatch(/does not serve/)
    expect(await tool.guard!({}, { ports: {} as never, actor: 'a', runId: 'r', tenants: ['11111111-1111-4111-8111-111111111111'] })).toBeNull()
  })

  it('extends a registry at run time; a built-in name wins', () => {
    const builtIn = createToolRegistry([defineTool({ name: 'mcp__files__read_text_file', description: 'built in', class: 'READ', input: z.object({}), run: async () => ({ output: 'b' }) })])
    let extra: typeof registry | null = null
    const extended = extendRegistry(builtIn, () => extra)
    expect(extended.list()).toHaveLength(1)
    extra = registry
    expect(extended.get('mcp__files__read_text_file')!.description).toBe('built in')
    expect(extended.list().map(tool => tool.name)).toEqual(['mcp__files__read_text_file', 'mcp__files__write_file', 'mcp__files__move_file'])
    expect(extended.specs().map(spec => spec.name)).toEqual(['mcp__files__read_text_file', 'mcp__files__write_file'])
    expect(extended.specs(['mcp__files__write_file', 'mcp__files__move_file', 'nothing']).map(spec => spec.name)).toEqual(['mcp__files__write_file'])
  })
})
