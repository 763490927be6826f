// The MCP servers of this process: their connections (connections.ts) and the tool registry
// built from their last listings, rebuilt after every listing, status change or class. The hub
// provides it at start-up (layers/hub/server/plugins/mcp.ts); customToolRegistry() asks for it
// at each use, so a tool classified a second ago is usable by the next call.
import type { ToolRegistry } from '../engine/tools'
import { McpManager, type McpManagerDeps } from './connections'
import { listServers, serverTools } from './store'
import { mcpRegistry, type McpToolDeps } from './tools'

export interface McpRuntime {
  manager: McpManager
  /** The registry as last built (null until the first build). */
  registry: () => ToolRegistry | null
  /** Rebuilds the registry from the tables (after a founder's change). */
  refresh: () => Promise<ToolRegistry>
}

export function createMcpRuntime(deps: McpManagerDeps & Pick<McpToolDeps, 'fence' | 'timeoutMs' | 'resultChars'>): McpRuntime {
  let built: ToolRegistry | null = null
  const refresh = async (): Promise<ToolRegistry> => {
    const [servers, tools] = await Promise.all([listServers(deps.db), serverTools(deps.db)])
    built = mcpRegistry({ manager, fence: deps.fence, timeoutMs: deps.timeoutMs, resultChars: deps.resultChars }, servers, tools)
    return built
  }
  const manager: McpManager = new McpManager({
    ...deps,
    onChange: (server, status) => {
      deps.onChange?.(server, status)
      refresh().catch((error: unknown) => deps.log(`[mcp] the tool registry could not be rebuilt (${String(error)})`))
    },
  })
  return { manager, registry: () => built, refresh }
}

let provided: McpRuntime | null = null

/** The hub's plugin (or a test) sets the process's MCP runtime; null removes it. */
export function provideMcpRuntime(runtime: McpRuntime | null): void {
  provided = runtime
}

export function currentMcpRuntime(): McpRuntime | null {
  return provided
}

export function useMcpRuntime(): McpRuntime {
  if (!provided) throw new Error('no MCP runtime was provided: the hub layer\'s plugin (layers/hub/server/plugins/mcp.ts) did not run')
  return provided
}
