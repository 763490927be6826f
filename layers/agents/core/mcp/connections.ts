// One SDK client per enabled MCP server (issue 35, Deliver 1). A stdio server's command runs
// through the `wrapCommand` port (the hub puts it in the coding agent's kind of sandbox: the
// agents layer may not import spawn) with only the environment variables named for it; an
// HTTP server is reached only at a URL of the allowlist, its credential read from the hub's
// environment into a header the model never sees. On connection the tools, resources and
// prompts are listed and recorded (store.ts); a server that dies is shown down, restarted with
// exponential backoff (bounded), then shown up again.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Db } from '#db/connection'
import type { McpServerRow } from '#db/schema/mcp'
import { ToolError } from '../engine/tools'
import { MCP_BACKOFF, MCP_CALL_TIMEOUT_MS, PROMPT_TOOL, RESOURCE_TOOL, urlAllowed, type McpStatus } from './config'
import { getServer, listServers, setServerStatus, syncListing, type ListedTool } from './store'

export interface StdioLaunch { server: string, command: string, args: string[], env: Record<string, string> }
/** The hub's sandbox around a stdio server's command. */
export type WrapCommand = (launch: StdioLaunch) => { command: string, args: string[], env: Record<string, string> }

export interface McpManagerDeps {
  db: Db
  /** Where the named variables' values are read (the hub's process environment). */
  env: Record<string, string | undefined>
  wrapCommand: WrapCommand
  httpAllowlist: readonly string[]
  log: (line: string) => void
  backoff?: typeof MCP_BACKOFF
  /** Called after a listing or a status change (the tool registry is rebuilt). */
  onChange?: (server: string, status: McpStatus) => void
}

interface Connection {
  row: McpServerRow
  client: Client | null
  transport: Transport | null
  status: McpStatus
  attempts: number
  timer: NodeJS.Timeout | null
  /** Bumped at every (re)connection: a close of an older transport is not a death of this one. */
  generation: number
}

export class McpManager {
  private readonly connections = new Map<string, Connection>()
  private readonly backoff: typeof MCP_BACKOFF

  constructor(private readonly deps: McpManagerDeps) {
    this.backoff = deps.backoff ?? MCP_BACKOFF
  }

  /** Connects every enabled server (their failures are statuses, not errors). */
  async start(): Promise<void> {
    await Promise.all((await listServers(this.deps.db)).map(row => this.reconnect(row.name, row)))
  }

  status(name: string): McpStatus {
    return this.connections.get(name)?.status ?? 'down'
  }

  /** The child process of a stdio server (null: HTTP, or not running). */
  pid(name: string): number | null {
    const transport = this.connections.get(name)?.transport
    return transport instanceof StdioClientTransport ? transport.pid : null
  }

  /** (Re)connects a server from its row now, the backoff reset: the page's "reconnect" and every save. */
  async reconnect(name: string, given?: McpServerRow): Promise<McpStatus> {
    const row = given ?? await getServer(this.deps.db, name)
    await this.disconnect(name)
    const connection: Connection = { row, client: null, transport: null, status: 'down', attempts: 0, timer: null, generation: 0 }
    this.connections.set(name, connection)
    if (!row.enabled) {
      await this.setStatus(connection, 'disabled', { lastError: null })
      return 'disabled'
    }
    await this.connect(connection)
    return connection.status
  }

  /** Closes a server's client and forgets it (disabled, deleted, or the hub stopping). */
  async disconnect(name: string): Promise<void> {
    const connection = this.connections.get(name)
    if (!connection) return
    this.connections.delete(name)
    connection.generation = -1
    if (connection.timer) clearTimeout(connection.timer)
    await connection.client?.close().catch((error: unknown) => this.deps.log(`[mcp] ${name}: close failed (${String(error)})`))
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.keys()].map(name => this.disconnect(name)))
  }

  async callTool(server: string, name: string, args: Record<string, unknown>, timeoutMs = MCP_CALL_TIMEOUT_MS): Promise<McpCallResult> {
    const client = await this.client(server)
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })
    return result as McpCallResult
  }

  async readResource(server: string, uri: string, timeoutMs = MCP_CALL_TIMEOUT_MS) {
    return await (await this.client(server)).readResource({ uri }, { timeout: timeoutMs })
  }

  async getPrompt(server: string, name: string, args: Record<string, string>, timeoutMs = MCP_CALL_TIMEOUT_MS) {
    return await (await this.client(server)).getPrompt({ name, arguments: args }, { timeout: timeoutMs })
  }

  /**
   * A server this process never connected is connected at its first call (a short-lived
   * process, e.g. the agents-dispatch automate, starts only the servers its runs use); one
   * that is down or restarting fails at once, the model told so.
   */
  private async client(server: string): Promise<Client> {
    if (!this.connections.has(server)) await this.reconnect(server)
    return this.upClient(server)
  }

  /** The SDK client of an up server (the bench compares a call through the engine with one through it). */
  upClient(server: string): Client {
    const connection = this.connections.get(server)
    if (!connection?.client || connection.status !== 'up') throw new ToolError('mcp_server_down', `the MCP server ${server} is ${connection?.status ?? 'down'}`)
    return connection.client
  }

  private async connect(connection: Connection): Promise<void> {
    const generation = ++connection.generation
    const { row } = connection
    try {
      const transport = mcpTransport(row, this.deps)
      const client = newMcpClient()
      transport.onclose = () => {
        if (connection.generation === generation) void this.died(connection, generation, 'the server closed its connection')
      }
      connection.transport = transport
      await client.connect(transport, { timeout: MCP_CALL_TIMEOUT_MS })
      // connect() replaces the transport's handlers with its own, which call the client's.
      client.onclose = () => {
        if (connection.generation === generation) void this.died(connection, generation, 'the server closed its connection')
      }
      connection.client = client
      const unclassified = await syncListing(this.deps.db, row.name, await mcpListing(client))
      if (connection.generation !== generation) return
      if (unclassified.length > 0) this.deps.log(`[mcp] ${row.name}: unclassified until a founder decides: ${unclassified.join(', ')}`)
      connection.attempts = 0
      await this.setStatus(connection, 'up', { lastError: null, connectedAt: new Date() })
    }
    catch (error) {
      if (connection.generation === generation)
        await this.died(connection, generation, error instanceof Error ? error.message : String(error))
    }
  }

  /** A death (or a failed connection): down now, another attempt after the backoff, at most `attempts` in a row. */
  private async died(connection: Connection, generation: number, reason: string): Promise<void> {
    connection.generation = generation + 1
    const client = connection.client
    connection.client = null
    connection.transport = null
    // Closing a client whose process already died usually fails too: said, then the restart goes on.
    await client?.close().catch((error: unknown) => this.deps.log(`[mcp] ${connection.row.name}: closing the dead client failed (${String(error)})`))
    if (!this.connections.has(connection.row.name) || this.connections.get(connection.row.name) !== connection) return
    this.deps.log(`[mcp] ${connection.row.name} is down: ${reason}`)
    await this.setStatus(connection, 'down', { lastError: reason.slice(0, 1000) })
    if (connection.attempts >= this.backoff.attempts) return
    const delay = Math.min(this.backoff.baseMs * 2 ** connection.attempts, this.backoff.maxMs)
    connection.attempts += 1
    connection.timer = setTimeout(() => {
      connection.timer = null
      if (this.connections.get(connection.row.name) !== connection) return
      void this.setStatus(connection, 'restarting', { restarts: connection.row.restarts + connection.attempts })
        .then(() => this.connect(connection))
        .catch((error: unknown) => this.deps.log(`[mcp] ${connection.row.name}: restart failed (${String(error)})`))
    }, delay)
    connection.timer.unref()
  }

  private async setStatus(connection: Connection, status: McpStatus, patch: Parameters<typeof setServerStatus>[3]): Promise<void> {
    connection.status = status
    await setServerStatus(this.deps.db, connection.row.name, status, patch)
    this.deps.onChange?.(connection.row.name, status)
  }
}

/** The transport to a server as its row says: the stdio command through the sandbox port, or the allowlisted URL with its credential. */
export function mcpTransport(row: Pick<McpServerRow, 'name' | 'transport' | 'command' | 'args' | 'url' | 'envNames' | 'headerEnvName'>, deps: Pick<McpManagerDeps, 'env' | 'wrapCommand' | 'httpAllowlist'>): Transport {
  if (row.transport === 'stdio') {
    const env: Record<string, string> = {}
    for (const name of row.envNames) {
      const value = deps.env[name]
      if (value !== undefined) env[name] = value
    }
    const wrapped = deps.wrapCommand({ server: row.name, command: row.command!, args: row.args, env })
    return new StdioClientTransport({ command: wrapped.command, args: wrapped.args, env: wrapped.env, stderr: 'ignore' })
  }
  if (!urlAllowed(row.url!, deps.httpAllowlist)) throw new Error(`url_not_allowlisted: ${row.url} is not on MCP_HTTP_ALLOWLIST`)
  const headers: Record<string, string> = {}
  if (row.headerEnvName) {
    const credential = deps.env[row.headerEnvName]
    if (!credential) throw new Error(`missing_credential: ${row.headerEnvName} is not set in the hub's environment`)
    headers.Authorization = `Bearer ${credential}`
  }
  // No redirect followed: a redirect could lead off the allowlist with the credential.
  return new StreamableHTTPClientTransport(new URL(row.url!), { requestInit: { headers, redirect: 'error' } })
}

/** The hub as an MCP client (no sampling, no elicitation, no roots: a server cannot ask the hub's model anything). */
export function newMcpClient(): Client {
  return new Client({ name: 'synedre-hub', version: '1.0.0' })
}

export interface McpCallResult {
  content?: Array<{
    type: string
    text?: string
    mimeType?: string
    data?: string
    resource?: { uri: string, text?: string }
    uri?: string
  }>
  structuredContent?: unknown
  isError?: boolean
}

/** Every page of the server's tools, then its resources and prompts as one read tool each. */
export async function mcpListing(client: Client): Promise<ListedTool[]> {
  const out: ListedTool[] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: MCP_CALL_TIMEOUT_MS })
    for (const tool of page.tools) out.push({ name: tool.name, kind: 'tool', description: tool.description ?? tool.title ?? '', inputSchema: tool.inputSchema as Record<string, unknown> })
    cursor = page.nextCursor
  } while (cursor)
  const capabilities = client.getServerCapabilities() ?? {}
  if (capabilities.resources) {
    const resources = await client.listResources(undefined, { timeout: MCP_CALL_TIMEOUT_MS })
    const known = resources.resources.slice(0, 50).map(resource => `${resource.uri} (${resource.name})`).join('; ')
    out.push({
      name: RESOURCE_TOOL, kind: 'resources',
      description: `Reads one resource of this server by its URI. Listed resources: ${known || 'none listed (templates may still resolve)'}`,
      inputSchema: { type: 'object', properties: { uri: { type: 'string', description: 'the resource URI' } }, required: ['uri'], additionalProperties: false },
    })
  }
  if (capabilities.prompts) {
    const prompts = await client.listPrompts(undefined, { timeout: MCP_CALL_TIMEOUT_MS })
    const known = prompts.prompts.slice(0, 50).map(prompt => `${prompt.name}${prompt.arguments?.length ? `(${prompt.arguments.map(arg => arg.name).join(', ')})` : ''}`).join('; ')
    out.push({
      name: PROMPT_TOOL, kind: 'prompts',
      description: `Gets one prompt of this server by name, with its arguments. Prompts: ${known || 'none'}`,
      inputSchema: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['name'], additionalProperties: false },
    })
  }
  return out
}
