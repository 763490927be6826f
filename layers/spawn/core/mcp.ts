// The MCP servers a spawn's coding agent receives, through the CLI's own MCP configuration
// (`--mcp-config` with `--strict-mcp-config`: no other configuration counts). Which servers and
// which classified tools come in through a port (SpawnPorts.mcpServers, the agents' MCP registry
// behind it); here the spawn decides what its headless agent may use:
//   READ            allowed (`--allowedTools mcp__<server>__<tool>`);
//   EXTERNAL_WRITE  allowed only when the routed agent holds a standing approval for the tool
//                   (no one can answer an approval in a headless run);
//   WRITE           withheld: an MCP write is not undoable from the hub as a custom agent's is;
//   DESTRUCTIVE     withheld: never under a standing approval;
// every withheld tool is also in `--disallowedTools` (removed from what the model sees), and a
// tool the registry did not list (new, unclassified) is absent: a stdio server is started
// behind the gate (scripts/spawn-mcp-gate.mjs) that lists and lets through only the allowed
// tools. An http server has no gate: its unlisted tools are refused by the CLI's permissions
// unless the permission mode bypasses them, so under bypassPermissions it is withheld whole.
// Credentials: an http server's header value is written by a key injector outside the sandbox
// (the agent holds a placeholder, as for the model key); a stdio server runs inside the
// sandbox, as the agent's child, so its variables (taken by name from the worker's environment)
// go into the configuration file, in the spawn's own folder (never the work folder), readable
// only inside this sandbox and removed when the agent ends.
import { realpathSync, rmSync, writeFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import type { Db } from '#db/client'

export const MCP_TOOL_CLASSES = ['READ', 'WRITE', 'DESTRUCTIVE', 'EXTERNAL_WRITE'] as const
export type McpToolClass = typeof MCP_TOOL_CLASSES[number]

const NAME = /^[\w-]{1,64}$/
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/

export const mcpServerLaunchSchema = z.object({
  name: z.string().regex(NAME, 'letters, digits, _ and - only (the CLI names tools mcp__<server>__<tool>)'),
  transport: z.enum(['stdio', 'http']),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  /** Variables of the worker's environment handed to a stdio server, by name. */
  envNames: z.array(z.string().regex(ENV_NAME)).optional(),
  url: z.string().url().optional(),
  /** The variable holding an http server's credential (sent as `Authorization: Bearer`). */
  headerEnvName: z.string().regex(ENV_NAME).optional(),
  /** What a stdio server needs to read inside the sandbox besides the toolchain (its package's folder). */
  readPaths: z.array(z.string().refine(isAbsolute, 'an absolute path')).optional(),
  tools: z.array(z.object({ name: z.string().min(1).max(128), class: z.enum(MCP_TOOL_CLASSES) })),
}).superRefine((server, ctx) => {
  if (server.transport === 'stdio' && !server.command) ctx.addIssue({ code: 'custom', message: 'a stdio server needs its command' })
  if (server.transport === 'http' && !server.url) ctx.addIssue({ code: 'custom', message: 'an http server needs its url' })
  if (server.url && !/^https?:\/\//.test(server.url)) ctx.addIssue({ code: 'custom', message: 'an http(s) url' })
})

export type McpServerLaunch = z.infer<typeof mcpServerLaunchSchema>

/** What the spawn asks of the registry: the servers the agent and the client allow, with their classified tools. */
export type McpServersPort = (input: { db: Db, agent: string, tenant: { id: string, slug: string } | null }) => Promise<McpServerLaunch[]>

export const noMcpServers: McpServersPort = async () => []

/** The gate a stdio server runs behind (plain JavaScript: it runs inside the sandbox, without tsx). */
export const MCP_GATE_SCRIPT = fileURLToPath(new URL('../../../scripts/spawn-mcp-gate.mjs', import.meta.url))

/** The CLI's name of an MCP tool, also the key of its standing approval. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`
}

export interface McpToolDecision {
  server: string
  tool: string
  class: McpToolClass
  allowed: boolean
  /** Why a tool is withheld, in words. */
  why: string | null
}

/**
 * Each listed tool allowed or withheld; `standing` answers whether the agent holds a live
 * standing approval for a tool (asked only for EXTERNAL_WRITE ones).
 */
export async function decideMcpTools(servers: McpServerLaunch[], standing: (tool: string) => Promise<boolean>): Promise<McpToolDecision[]> {
  const out: McpToolDecision[] = []
  for (const server of servers) {
    for (const tool of server.tools) {
      const base = { server: server.name, tool: tool.name, class: tool.class }
      if (tool.class === 'READ') out.push({ ...base, allowed: true, why: null })
      else if (tool.class === 'EXTERNAL_WRITE' && await standing(mcpToolName(server.name, tool.name))) out.push({ ...base, allowed: true, why: null })
      else {
        const why = tool.class === 'EXTERNAL_WRITE'
          ? 'EXTERNAL_WRITE without a standing approval: no one can approve it in a headless run'
          : `${tool.class}: withheld from headless spawns`
        out.push({ ...base, allowed: false, why })
      }
    }
  }
  return out
}

export interface McpHeaderProxy {
  /** The injector's http://127.0.0.1:<port>. */
  url: string
  host: string
  placeholder: string
}

export interface McpPlan {
  /** The CLI's configuration (`mcpServers`), as written into the file. */
  config: { mcpServers: Record<string, Record<string, unknown>> }
  allowedTools: string[]
  disallowedTools: string[]
  /** Paths the sandbox must show read-only (the gate, the servers' commands and packages). */
  readable: string[]
  /** Servers left out whole, with the reason (logged). */
  skipped: Array<{ server: string, why: string }>
}

export interface McpPlanInput {
  servers: McpServerLaunch[]
  decisions: McpToolDecision[]
  env: Readonly<Record<string, string | undefined>>
  /** The agent's PATH, to find a stdio server's command given by name. */
  findCommand: (command: string) => string | null
  /** The header injector started for an http server with a credential, by server name. */
  proxies: Record<string, McpHeaderProxy>
  permissionMode: string
  nodeBin: string
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path)
  }
  catch {
    return null
  }
}

/** The configuration and the tool lists of a spawn: pure but for resolving paths. */
export function planMcp(input: McpPlanInput): McpPlan {
  const plan: McpPlan = { config: { mcpServers: {} }, allowedTools: [], disallowedTools: [], readable: [], skipped: [] }
  for (const server of input.servers) {
    const decisions = input.decisions.filter(d => d.server === server.name)
    const allowed = decisions.filter(d => d.allowed).map(d => d.tool)
    const withheld = decisions.filter(d => !d.allowed).map(d => mcpToolName(server.name, d.tool))
    const skip = (why: string) => plan.skipped.push({ server: server.name, why })
    if (allowed.length === 0) {
      skip('none of its tools is allowed to a headless spawn')
      continue
    }
    if (server.transport === 'stdio') {
      const command = server.command!.includes('/') ? server.command! : input.findCommand(server.command!)
      if (!command) {
        skip(`its command "${server.command}" is not on the agent's PATH`)
        continue
      }
      const missing = (server.envNames ?? []).filter(name => !input.env[name])
      if (missing.length > 0) {
        skip(`the worker's environment lacks ${missing.join(', ')}`)
        continue
      }
      const env = Object.fromEntries((server.envNames ?? []).map(name => [name, input.env[name]!]))
      plan.config.mcpServers[server.name] = {
        type: 'stdio',
        command: input.nodeBin,
        args: [MCP_GATE_SCRIPT, `--allow=${JSON.stringify(allowed)}`, '--', command, ...(server.args ?? [])],
        env,
      }
      for (const path of [MCP_GATE_SCRIPT, command, ...(server.readPaths ?? [])]) {
        plan.readable.push(path)
        const real = realOrNull(path)
        if (real && real !== path) plan.readable.push(real)
      }
    }
    else {
      if (input.permissionMode === 'bypassPermissions') {
        skip('an http server has no gate for its unlisted tools, and bypassPermissions would let them run')
        continue
      }
      const url = new URL(server.url!)
      const proxy = input.proxies[server.name]
      if (server.headerEnvName && !proxy) {
        skip(`the worker's environment lacks ${server.headerEnvName}`)
        continue
      }
      plan.config.mcpServers[server.name] = proxy
        ? { type: 'http', url: `${proxy.url}${url.pathname}${url.search}`, headers: { Authorization: `Bearer ${proxy.placeholder}` } }
        : { type: 'http', url: url.href }
    }
    plan.allowedTools.push(...allowed.map(tool => mcpToolName(server.name, tool)))
    plan.disallowedTools.push(...withheld)
  }
  plan.readable = [...new Set(plan.readable)]
  return plan
}

/** The configuration file, in the spawn's own folder (outside the work folder); removed when the agent ends. */
export function writeMcpConfig(spawnDir: string, plan: McpPlan): { file: string, remove: () => void } {
  const file = join(spawnDir, 'mcp.json')
  // Readable by the agent's uid (the CLI reads it), inside this spawn's sandbox only.
  writeFileSync(file, JSON.stringify(plan.config, null, 2), { mode: 0o644 })
  return { file, remove: () => rmSync(file, { force: true }) }
}
