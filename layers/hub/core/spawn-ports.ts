// The spawn engine's ports implemented on atlas and the agents: the audit trail is
// atlas_audit, written by atlas's own writer; the MCP servers a spawn gets are those the
// agents' registry allows its agent and client (layers/agents/core/mcp). Spread into the
// engine's dependencies by the automates, the agent engine and the tests' fixtures.
import { dirname, isAbsolute, sep } from 'node:path'
import { recordAtlasAudit } from '#layers/atlas/core/audit'
import { mcpServersFor, type McpServerLaunch as RegistryLaunch } from '#layers/agents/core/mcp/launch'
import type { McpServerLaunch, McpServersPort } from '#layers/spawn/core/mcp'
import type { SpawnPorts } from '#layers/spawn/core/ports'

/** What a stdio server's command must read inside the sandbox: the package folder of each absolute path it names. */
export function readPathsOf(command: string | null, args: string[]): string[] {
  const paths = [command ?? '', ...args].filter(part => isAbsolute(part))
  return [...new Set(paths.map((path) => {
    const at = path.lastIndexOf(`${sep}node_modules${sep}`)
    return at >= 0 ? path.slice(0, at + `${sep}node_modules`.length) : dirname(path)
  }))]
}

export function toSpawnLaunch(server: RegistryLaunch): McpServerLaunch {
  return {
    name: server.name,
    transport: server.transport,
    ...(server.command ? { command: server.command, args: server.args, readPaths: readPathsOf(server.command, server.args) } : {}),
    ...(server.envNames.length > 0 ? { envNames: server.envNames } : {}),
    ...(server.url ? { url: server.url } : {}),
    ...(server.headerEnvName ? { headerEnvName: server.headerEnvName } : {}),
    tools: server.tools,
  }
}

const registryServers: McpServersPort = async ({ db, agent, tenant }) =>
  (await mcpServersFor(db, { agent, tenant: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null })).map(toSpawnLaunch)

export const spawnPorts: SpawnPorts = {
  audit: recordAtlasAudit,
  mcpServers: registryServers,
}
