// The spawn engine's ports implemented on atlas: the audit trail is atlas_audit, written by
// atlas's own writer. Spread into the engine's dependencies by the automates, the agent engine
// and the tests' fixtures.
import { recordAtlasAudit } from '#layers/atlas/core/audit'
import { noMcpServers } from '#layers/spawn/core/mcp'
import type { SpawnPorts } from '#layers/spawn/core/ports'

export const spawnPorts: SpawnPorts = {
  audit: recordAtlasAudit,
  // The agents' MCP registry (layers/agents/core/mcp) answers here once it is wired: until then, none.
  mcpServers: noMcpServers,
}
