// MCP servers a founder registers for the agents (issue 35, Deliver 1; seed 003 §14): how to
// reach each one (a stdio command run in the sandbox, or a streamable HTTP URL on the
// allowlist), the NAMES of the environment variables it gets or its credential comes from —
// never their values — the clients it serves, and what the hub last saw of it. Its tools are
// listed on connection with their schema's hash; a founder gives each a class, and a new or
// changed tool has none (unusable) until they do.
import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, varchar } from 'drizzle-orm/pg-core'

export const mcpServers = pgTable('mcp_servers', {
  name: varchar('name', { length: 24 }).primaryKey(),
  transport: text('transport').notNull(),
  command: text('command'),
  args: jsonb('args').$type<string[]>().notNull().default([]),
  url: text('url'),
  /** Environment variable names passed to a stdio server (values read from the hub's environment at launch). */
  envNames: jsonb('env_names').$type<string[]>().notNull().default([]),
  /** The environment variable holding an HTTP server's credential (sent as a bearer header). */
  headerEnvName: text('header_env_name'),
  /** clients.id the server serves; null: every client. */
  tenants: jsonb('tenants').$type<string[] | null>(),
  enabled: boolean('enabled').notNull().default(true),
  status: text('status').notNull().default('down'),
  lastError: text('last_error'),
  restarts: integer('restarts').notNull().default(0),
  connectedAt: timestamp('connected_at', { withTimezone: true }),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  check('mcp_servers_transport_check', sql`${table.transport} in ('stdio', 'http')`),
  check('mcp_servers_status_check', sql`${table.status} in ('up', 'down', 'restarting', 'disabled')`),
  check('mcp_servers_target_check', sql`(${table.transport} = 'stdio' and ${table.command} is not null) or (${table.transport} = 'http' and ${table.url} is not null)`),
])

export const mcpTools = pgTable('mcp_tools', {
  server: varchar('server', { length: 24 }).notNull().references(() => mcpServers.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
  /** The name the server gives (tools), or read_resource / get_prompt (the server's resources and prompts). */
  name: text('name').notNull(),
  kind: text('kind').notNull().default('tool'),
  description: text('description').notNull().default(''),
  inputSchema: jsonb('input_schema').$type<Record<string, unknown>>().notNull(),
  schemaHash: varchar('schema_hash', { length: 64 }).notNull(),
  /** null: unclassified (a new tool, or its schema changed): refused until a founder classifies it. */
  class: text('class'),
  classifiedBy: text('classified_by'),
  classifiedAt: timestamp('classified_at', { withTimezone: true }),
  /** Gone from the server's last listing (kept with its class should it come back unchanged). */
  present: boolean('present').notNull().default(true),
  seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
}, table => [
  primaryKey({ columns: [table.server, table.name] }),
  index('mcp_tools_server_idx').on(table.server),
  check('mcp_tools_kind_check', sql`${table.kind} in ('tool', 'resources', 'prompts')`),
  check('mcp_tools_class_check', sql`${table.class} is null or ${table.class} in ('READ', 'WRITE', 'DESTRUCTIVE', 'EXTERNAL_WRITE')`),
])

export type McpServerRow = typeof mcpServers.$inferSelect
export type McpToolRow = typeof mcpTools.$inferSelect
