import { currentMcpRuntime } from '#layers/agents/core/mcp/runtime'
import { serversView } from '#layers/agents/core/mcp/store'

// The MCP servers, their status and their tools with each one's class. Anyone signed in reads
// (it explains what an agent may call); only a founder changes them. Never an environment value.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  const servers = await serversView(await useDb())
  const runtime = currentMcpRuntime()
  // The status this process sees now (the row holds the last one written).
  return {
    servers: servers.map(server => ({ ...server, status: runtime ? runtime.manager.status(server.name) : server.status })),
    canEdit: user.role === 'founder',
  }
})
