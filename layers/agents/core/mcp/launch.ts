// What a spawn is given of the MCP servers (issue 35, Deliver 2, wired by the integrator into
// spawn's CLI configuration): the enabled servers serving the tenant, each with its classified
// tools only — narrowed, for an agent with an allowlist, to the mcp__server__tool names it lists.
import type { Db } from '#db/connection'
import { agentCustom } from '#db/schema/custom-agents'
import { eq } from 'drizzle-orm'
import type { ToolClass } from '../engine/vocabulary'
import { mcpToolName } from './config'
import { listServers, serverTools } from './store'

export interface McpServerLaunch {
  name: string
  transport: 'stdio' | 'http'
  command: string | null
  args: string[]
  /** Names only: the launcher reads their values from its own environment. */
  envNames: string[]
  url: string | null
  /** The variable whose value is the HTTP credential (a bearer header). */
  headerEnvName: string | null
  tools: Array<{ name: string, class: ToolClass }>
}

/**
 * `agent`: a codename (its custom allowlist applies when it has one) or null; `tenant`:
 * clients.id of the work and `tenantSlug` its slug, as a server's list may name either (null:
 * work of no client, served only by servers for every client).
 */
export async function mcpServersFor(
  db: Db,
  scope: { agent: string | null, tenant: string | null, tenantSlug?: string | null },
): Promise<McpServerLaunch[]> {
  const [servers, tools, custom] = await Promise.all([
    listServers(db),
    serverTools(db),
    scope.agent
      ? db.select({ allowlist: agentCustom.allowlist }).from(agentCustom).where(eq(agentCustom.codename, scope.agent))
      : Promise.resolve([]),
  ])
  const allowlist = custom[0] ? new Set(custom[0].allowlist.tools) : null
  return servers
    .filter(
      server =>
        server.enabled && (!server.tenants || [scope.tenant, scope.tenantSlug].some(key => key != null && server.tenants!.includes(key))),
    )
    .map(server => ({
      name: server.name,
      transport: server.transport as McpServerLaunch['transport'],
      command: server.command,
      args: server.args,
      envNames: server.envNames,
      url: server.url,
      headerEnvName: server.headerEnvName,
      tools: tools
        .filter(tool => tool.server === server.name && tool.present && tool.class !== null)
        .filter(tool => !allowlist || allowlist.has(mcpToolName(server.name, tool.name)))
        .map(tool => ({ name: tool.name, class: tool.class as ToolClass })),
    }))
    .filter(server => server.tools.length > 0)
}
