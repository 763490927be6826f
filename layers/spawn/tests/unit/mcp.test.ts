// What a spawn's coding agent receives of its MCP servers (mcp.ts): the tools decided by class
// and standing approval, the CLI's configuration and tool lists, the wrapper's and the CLI's
// arguments. The real CLI with a real server is integration/mcp-claude.test.ts.
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildAgentArgs } from '#layers/spawn/core/args'
import { decideMcpTools, MCP_GATE_SCRIPT, mcpServerLaunchSchema, planMcp, writeMcpConfig, type McpPlanInput, type McpServerLaunch } from '#layers/spawn/core/mcp'
import { parseWrapperArgs, WrapperUsageError } from '#layers/spawn/core/wrapper-args'

const STDIO: McpServerLaunch = {
  name: 'files', transport: 'stdio', command: '/usr/bin/files-server', args: ['--root', '/data'], envNames: ['FILES_TOKEN'],
  tools: [{ name: 'read', class: 'READ' }, { name: 'write', class: 'WRITE' }, { name: 'wipe', class: 'DESTRUCTIVE' }, { name: 'post', class: 'EXTERNAL_WRITE' }, { name: 'share', class: 'EXTERNAL_WRITE' }],
}
const HTTP: McpServerLaunch = { name: 'crm', transport: 'http', url: 'https://crm.example/mcp?v=2', headerEnvName: 'CRM_TOKEN', tools: [{ name: 'lookup', class: 'READ' }] }

function input(over: Partial<McpPlanInput> & Pick<McpPlanInput, 'servers' | 'decisions'>): McpPlanInput {
  return { env: { FILES_TOKEN: 'files-secret', CRM_TOKEN: 'crm-secret' }, findCommand: () => null, proxies: {}, permissionMode: 'acceptEdits', nodeBin: '/opt/node/bin/node', ...over }
}

describe('the tools a headless spawn may use', () => {
  it('allows READ, an EXTERNAL_WRITE only under a standing approval, never WRITE or DESTRUCTIVE', async () => {
    const asked: string[] = []
    const decisions = await decideMcpTools([STDIO], async (tool) => {
      asked.push(tool)
      return tool === 'mcp__files__post'
    })
    expect(decisions.map(d => [d.tool, d.allowed])).toEqual([['read', true], ['write', false], ['wipe', false], ['post', true], ['share', false]])
    // Standing approvals are asked for EXTERNAL_WRITE tools only (DESTRUCTIVE never takes one).
    expect(asked).toEqual(['mcp__files__post', 'mcp__files__share'])
    expect(decisions.find(d => d.tool === 'share')?.why).toMatch(/standing approval/)
  })

  it('configures a stdio server behind the gate, with its variables by name and the withheld tools disallowed', async () => {
    const decisions = await decideMcpTools([STDIO], async () => false)
    const plan = planMcp(input({ servers: [STDIO], decisions }))
    expect(plan.config.mcpServers).toEqual({
      files: { type: 'stdio', command: '/opt/node/bin/node', args: [MCP_GATE_SCRIPT, '--allow=["read"]', '--', '/usr/bin/files-server', '--root', '/data'], env: { FILES_TOKEN: 'files-secret' } },
    })
    expect(plan.allowedTools).toEqual(['mcp__files__read'])
    expect(plan.disallowedTools).toEqual(['mcp__files__write', 'mcp__files__wipe', 'mcp__files__post', 'mcp__files__share'])
    expect(plan.readable).toEqual(expect.arrayContaining([MCP_GATE_SCRIPT, '/usr/bin/files-server']))
  })

  it('leaves out a server with nothing allowed, a command not found, or a variable the worker lacks', async () => {
    const writer: McpServerLaunch = { ...STDIO, name: 'writer', tools: [{ name: 'write', class: 'WRITE' }] }
    const named: McpServerLaunch = { ...STDIO, name: 'named', command: 'no-such-server' }
    const servers = [writer, named, STDIO]
    const decisions = await decideMcpTools(servers, async () => false)
    const plan = planMcp(input({ servers, decisions, env: {} }))
    expect(plan.config.mcpServers).toEqual({})
    expect(plan.allowedTools).toEqual([])
    expect(plan.skipped).toEqual([
      { server: 'writer', why: 'none of its tools is allowed to a headless spawn' },
      { server: 'named', why: 'its command "no-such-server" is not on the agent\'s PATH' },
      { server: 'files', why: 'the worker\'s environment lacks FILES_TOKEN' },
    ])
  })

  it('sends an http server through its header injector: the placeholder in the file, never the credential', async () => {
    const decisions = await decideMcpTools([HTTP], async () => false)
    const plan = planMcp(input({ servers: [HTTP], decisions, proxies: { crm: { url: 'http://127.0.0.1:4100', host: '127.0.0.1:4100', placeholder: 'sk-ant-placeholder-abc' } } }))
    expect(plan.config.mcpServers.crm).toEqual({ type: 'http', url: 'http://127.0.0.1:4100/mcp?v=2', headers: { Authorization: 'Bearer sk-ant-placeholder-abc' } })
    expect(JSON.stringify(plan.config)).not.toContain('crm-secret')
    // No injector (the credential is missing): left out rather than sent without it.
    expect(planMcp(input({ servers: [HTTP], decisions })).skipped).toEqual([{ server: 'crm', why: 'the worker\'s environment lacks CRM_TOKEN' }])
    // bypassPermissions would let its unlisted tools run: no http server then.
    expect(planMcp(input({ servers: [HTTP], decisions, permissionMode: 'bypassPermissions' })).config.mcpServers).toEqual({})
  })

  it('refuses a launch that would break the CLI\'s tool names or reach no server', () => {
    expect(mcpServerLaunchSchema.safeParse({ ...STDIO, name: 'a b' }).success).toBe(false)
    expect(mcpServerLaunchSchema.safeParse({ ...STDIO, command: undefined }).success).toBe(false)
    expect(mcpServerLaunchSchema.safeParse({ ...HTTP, url: 'file:///etc/passwd' }).success).toBe(false)
    expect(mcpServerLaunchSchema.safeParse({ ...STDIO, envNames: ['lower'] }).success).toBe(false)
    expect(mcpServerLaunchSchema.safeParse(STDIO).success).toBe(true)
  })

  it('writes the configuration in the spawn\'s folder and removes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spawn-mcp-'))
    try {
      const written = writeMcpConfig(dir, { config: { mcpServers: { x: { type: 'stdio' } } }, allowedTools: [], disallowedTools: [], readable: [], skipped: [] })
      expect(written.file).toBe(join(dir, 'mcp.json'))
      expect(JSON.parse(readFileSync(written.file, 'utf8'))).toEqual({ mcpServers: { x: { type: 'stdio' } } })
      written.remove()
      expect(existsSync(written.file)).toBe(false)
    }
    finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the CLI\'s MCP arguments', () => {
  it('gives the configuration alone (strict) and the tool lists before the prompt', () => {
    const args = buildAgentArgs({ addDir: '/w', model: 'sonnet', systemPrompt: 's', permissionMode: 'acceptEdits', prompt: 'p', mcpConfig: '/s/mcp.json', allowedTools: ['mcp__a__x', 'mcp__a__y'], disallowedTools: ['mcp__a__z'] })
    expect(args).toEqual(expect.arrayContaining(['--mcp-config=/s/mcp.json', '--strict-mcp-config', '--allowedTools=mcp__a__x,mcp__a__y', '--disallowedTools=mcp__a__z']))
    expect(args.indexOf('--strict-mcp-config')).toBeLessThan(args.indexOf('--'))
    expect(buildAgentArgs({ addDir: '/w', model: 'sonnet', systemPrompt: 's', permissionMode: 'acceptEdits', prompt: 'p' }).join(' ')).not.toContain('mcp')
  })

  it('the wrapper takes the lists and refuses a name that could read as something else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spawn-mcp-args-'))
    try {
      const base = ['--id', 's1', '--prompt-file', __filename, '--system-prompt-file', __filename, '--stream-log', join(dir, 'log'), '--add-dir', dir]
      const parsed = parseWrapperArgs([...base, '--mcp-config', __filename, '--allowed-tools', 'mcp__a__x,mcp__a__y', '--disallowed-tools', ''], {})
      expect(parsed).toMatchObject({ mcpConfig: __filename, allowedTools: ['mcp__a__x', 'mcp__a__y'], disallowedTools: [] })
      expect(() => parseWrapperArgs([...base, '--allowed-tools', 'mcp__a__x,Bash(rm -rf /)'], {})).toThrow(WrapperUsageError)
      expect(() => parseWrapperArgs([...base, '--mcp-config', join(dir, 'missing.json')], {})).toThrow(/cannot be read/)
    }
    finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
