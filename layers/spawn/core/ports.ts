// What the spawn engine asks of the layer that owns the mail (atlas), passed in by whoever builds
// its dependencies (layers/hub/core/spawn-ports.ts): the engine imports nothing from atlas.
import type { Db } from '#db/client'
import type { McpServersPort } from './mcp'
import type { AuditAction } from './vocabulary'

export interface SpawnAuditEntry {
  messageId?: number | null
  action: AuditAction
  actor: string
  details?: Record<string, unknown>
}

export interface SpawnPorts {
  /** Appends one row to the message's audit trail, inside the caller's transaction when given one. */
  audit: (db: Pick<Db, 'insert'>, entry: SpawnAuditEntry) => Promise<void>
  /**
   * The MCP servers the routed agent and the client allow, with their classified tools (the
   * agents' MCP registry); absent: none (mcp.ts's noMcpServers).
   */
  mcpServers?: McpServersPort
}
