// The MCP tables (db/schema/mcp.ts): servers a founder registers, the listing of their tools
// as last seen, and each tool's class. A listing keeps the class of a tool whose schema hash
// is unchanged and clears it otherwise: a new or changed tool is unusable until classified.
import { and, asc, eq, inArray, notInArray } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { recordAudit } from '#db/audit'
import { mcpServers, mcpTools, type McpServerRow, type McpToolRow } from '#db/schema/mcp'
import { EngineError } from '../engine/errors'
import type { PersonRole, ToolClass } from '../engine/vocabulary'
import { schemaHash, type McpStatus, type ServerInput } from './config'

export interface Editor { email: string, role: PersonRole }

/** One entry of a server's listing: a tool, or its resources / prompts as one read tool each. */
export interface ListedTool { name: string, kind: 'tool' | 'resources' | 'prompts', description: string, inputSchema: Record<string, unknown> }

/** A server as its page reads it; the row's status is one the manager wrote (McpStatus). */
export interface McpServerView extends Omit<McpServerRow, 'status'> { status: McpStatus, tools: McpToolRow[] }

function founderOnly(editor: Editor): void {
  if (editor.role !== 'founder') throw new EngineError('forbidden', 'only a founder manages MCP servers', 403)
}

export async function listServers(db: Db): Promise<McpServerRow[]> {
  return await db.select().from(mcpServers).orderBy(asc(mcpServers.name))
}

export async function getServer(db: Db, name: string): Promise<McpServerRow> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.name, name))
  if (!row) throw new EngineError('not_found', `no MCP server ${name}`, 404)
  return row
}

export async function serverTools(db: Db, names?: string[]): Promise<McpToolRow[]> {
  const query = db.select().from(mcpTools)
  return await (names ? query.where(inArray(mcpTools.server, names)) : query).orderBy(asc(mcpTools.server), asc(mcpTools.name))
}

export async function serversView(db: Db): Promise<McpServerView[]> {
  const [servers, tools] = await Promise.all([listServers(db), serverTools(db)])
  return servers.map(server => ({
    ...server,
    status: server.status as McpStatus,
    tools: tools.filter(tool => tool.server === server.name),
  }))
}

/** Adds a server or replaces its definition (founders); its tools and their classes stay. */
export async function saveServer(db: Db, editor: Editor, input: ServerInput): Promise<McpServerRow> {
  founderOnly(editor)
  const values = {
    transport: input.transport,
    command: input.transport === 'stdio' ? input.command : null,
    args: input.transport === 'stdio' ? input.args : [],
    url: input.transport === 'http' ? input.url : null,
    envNames: input.transport === 'stdio' ? input.envNames : [],
    headerEnvName: input.transport === 'http' ? input.headerEnvName : null,
    tenants: input.tenants,
    enabled: input.enabled,
    updatedAt: new Date(),
  }
  const [row] = await db.insert(mcpServers).values({ name: input.name, ...values, status: input.enabled ? 'down' : 'disabled', createdBy: editor.email })
    .onConflictDoUpdate({ target: mcpServers.name, set: values }).returning()
  await recordAudit(db, { actor: editor.email, action: 'mcp_server_saved', target: `mcp:${input.name}`, details: { transport: input.transport, enabled: input.enabled, envNames: values.envNames, headerEnvName: values.headerEnvName } })
  return row!
}

export async function setServerStatus(
  db: Db,
  name: string,
  status: McpStatus,
  patch: { lastError?: string | null, restarts?: number, connectedAt?: Date } = {},
): Promise<void> {
  await db
    .update(mcpServers)
    .set({ status, ...patch, updatedAt: new Date() })
    .where(eq(mcpServers.name, name))
}

/**
 * Records a server's listing: a tool seen again with the same hash keeps its class; a new
 * one, or one whose description or schema changed, has none; one no longer listed is absent.
 * Answers the names that became unclassified.
 */
export async function syncListing(db: Db, server: string, listed: ListedTool[]): Promise<string[]> {
  const known = new Map((await db.select().from(mcpTools).where(eq(mcpTools.server, server))).map(row => [row.name, row]))
  const now = new Date()
  const unclassified: string[] = []
  for (const tool of listed) {
    const hash = schemaHash(tool.description, tool.inputSchema)
    const before = known.get(tool.name)
    const same = before?.schemaHash === hash
    // Reading a resource or getting a prompt reads: those two are READ by nature, never held back.
    const reads = tool.kind !== 'tool'
    if (!same && !reads) unclassified.push(tool.name)
    const reset = reads ? { class: 'READ', classifiedBy: 'mcp', classifiedAt: now } : { class: null, classifiedBy: null, classifiedAt: null }
    const values = {
      kind: tool.kind,
      description: tool.description,
      inputSchema: tool.inputSchema,
      schemaHash: hash,
      present: true,
      seenAt: now,
      ...(same ? {} : reset),
    }
    await db
      .insert(mcpTools)
      .values({ server, name: tool.name, ...values })
      .onConflictDoUpdate({ target: [mcpTools.server, mcpTools.name], set: values })
  }
  const names = listed.map(tool => tool.name)
  await db
    .update(mcpTools)
    .set({ present: false })
    .where(names.length > 0 ? and(eq(mcpTools.server, server), notInArray(mcpTools.name, names)) : eq(mcpTools.server, server))
  return unclassified
}

/** A founder's class for a tool (null: back to unclassified, i.e. refused). */
export async function classifyTool(db: Db, editor: Editor, server: string, tool: string, toolClass: ToolClass | null): Promise<McpToolRow> {
  founderOnly(editor)
  const [row] = await db
    .update(mcpTools)
    .set({ class: toolClass, classifiedBy: toolClass ? editor.email : null, classifiedAt: toolClass ? new Date() : null })
    .where(and(eq(mcpTools.server, server), eq(mcpTools.name, tool)))
    .returning()
  if (!row) throw new EngineError('not_found', `no tool ${tool} on MCP server ${server}`, 404)
  await recordAudit(db, { actor: editor.email, action: 'mcp_tool_classified', target: `mcp:${server}`, details: { tool, class: toolClass, schemaHash: row.schemaHash } })
  return row
}

export function assertFounder(editor: Editor): void {
  founderOnly(editor)
}
