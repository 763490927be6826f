// A spawn's MCP servers made ready before its agent starts (mcp.ts decides, this runs it):
// the registry asked through the port for the routed agent and the client, the tools decided
// (standing approvals read for EXTERNAL_WRITE ones), a header injector started for each http
// server holding a credential, the configuration written into the spawn's own folder; what the
// sandbox must show and let through handed back, with `close()` for when the agent ends
// (injectors stopped, the file removed). A registry that cannot answer leaves the spawn
// without servers, said in the log: the request is worth more than its tools.
import { hasStandingApproval } from '#layers/agents/core/engine/standing'
import type { Db } from '#db/client'
import { startKeyInjector, type KeyInjector } from './key-injector'
import { decideMcpTools, mcpServerLaunchSchema, noMcpServers, planMcp, writeMcpConfig, type McpHeaderProxy, type McpServerLaunch, type McpServersPort } from './mcp'
import { findBinary } from './wrapper-args'

export interface SpawnMcp {
  /** What the wrapper passes the CLI; null: no server. */
  run: { configFile: string, allowedTools: string[], disallowedTools: string[] } | null
  /** Paths the sandbox shows read-only, hosts its proxy lets through. */
  readable: string[]
  allowHosts: string[]
  close: () => Promise<void>
}

const NONE: SpawnMcp = { run: null, readable: [], allowHosts: [], close: async () => {} }

export interface SpawnMcpInput {
  db: Db
  port: McpServersPort | undefined
  agent: string | null
  tenant: { id: string, slug: string } | null
  /** The spawn's own folder (never the work folder): where mcp.json goes. */
  spawnDir: string
  /** The worker's environment (credentials by name), and the agent's (its PATH). */
  env: Readonly<Record<string, string | undefined>>
  agentEnv: Readonly<Record<string, string | undefined>>
  permissionMode: string
  log: (line: string) => void
  label: string
}

async function serversOf(input: SpawnMcpInput): Promise<McpServerLaunch[]> {
  if (!input.agent) return []
  let raw: unknown
  try {
    raw = await (input.port ?? noMcpServers)({ db: input.db, agent: input.agent, tenant: input.tenant })
  }
  catch (error) {
    input.log(`[${input.label}] the MCP registry did not answer (${(error as Error).message}); the agent runs without MCP servers`)
    return []
  }
  const out: McpServerLaunch[] = []
  for (const item of Array.isArray(raw) ? raw : []) {
    const parsed = mcpServerLaunchSchema.safeParse(item)
    if (parsed.success) out.push(parsed.data)
    else input.log(`[${input.label}] an MCP server was left out: ${parsed.error.issues.map(issue => `${issue.path.join('.') || 'server'}: ${issue.message}`).join('; ')}`)
  }
  return out
}

export async function prepareSpawnMcp(input: SpawnMcpInput): Promise<SpawnMcp> {
  const servers = await serversOf(input)
  if (servers.length === 0) return NONE
  const decisions = await decideMcpTools(servers, tool => hasStandingApproval(input.db, input.agent!, tool))
  const injectors: KeyInjector[] = []
  const closeInjectors = async () => void await Promise.all(injectors.map(injector => injector.close()))
  try {
    const proxies: Record<string, McpHeaderProxy> = {}
    for (const server of servers) {
      if (server.transport !== 'http' || !server.headerEnvName || !decisions.some(d => d.server === server.name && d.allowed)) continue
      const key = input.env[server.headerEnvName]?.trim()
      if (!key) continue
      const injector = await startKeyInjector({ upstream: new URL(server.url!).origin, key, log: input.log, label: `${input.label} mcp ${server.name}` })
      injectors.push(injector)
      proxies[server.name] = injector
    }
    const plan = planMcp({
      servers,
      decisions,
      env: input.env,
      findCommand: command => findBinary(command, input.agentEnv),
      proxies,
      permissionMode: input.permissionMode,
      nodeBin: process.execPath,
    })
    for (const d of decisions.filter(d => !d.allowed)) input.log(`[${input.label}] MCP tool ${d.server}/${d.tool} withheld: ${d.why}`)
    for (const s of plan.skipped) input.log(`[${input.label}] MCP server ${s.server} left out: ${s.why}`)
    if (Object.keys(plan.config.mcpServers).length === 0) {
      await closeInjectors()
      return NONE
    }
    const written = writeMcpConfig(input.spawnDir, plan)
    const used = injectors.filter(injector => Object.values(plan.config.mcpServers).some(entry => String(entry.url ?? '').startsWith(injector.url)))
    return {
      run: { configFile: written.file, allowedTools: plan.allowedTools, disallowedTools: plan.disallowedTools },
      readable: [written.file, ...plan.readable],
      allowHosts: used.map(injector => injector.host),
      close: async () => {
        written.remove()
        await closeInjectors()
      },
    }
  }
  catch (error) {
    await closeInjectors()
    throw error
  }
}
