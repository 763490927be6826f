// The words and limits of MCP servers as tools (issue 35, Deliver 1): the bodies a founder
// sends, a tool's name as the engine knows it (mcp__<server>__<tool>), its schema's hash, and
// the allowlist of HTTP addresses (MCP_HTTP_ALLOWLIST: nothing is reachable unless listed).
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { TOOL_CLASSES } from '../engine/vocabulary'

export const MCP_TRANSPORTS = ['stdio', 'http'] as const
export type McpTransport = typeof MCP_TRANSPORTS[number]
export const MCP_STATUSES = ['up', 'down', 'restarting', 'disabled'] as const
export type McpStatus = typeof MCP_STATUSES[number]

/**
 * A call longer than this is abandoned (the model is told); a result longer than the cap is cut
 * before it is fenced, so the fence's end survives the engine's own cut (MODEL_OUTPUT_CHARS).
 */
export const MCP_CALL_TIMEOUT_MS = 30_000
export const MCP_RESULT_CHARS = 6_000
/** Restarts of a server that dies: 0.5 s, 1 s, 2 s … at most 30 s apart, 8 attempts, then down until "reconnect". */
export const MCP_BACKOFF = { baseMs: 500, maxMs: 30_000, attempts: 8 }

export const RESOURCE_TOOL = 'read_resource'
export const PROMPT_TOOL = 'get_prompt'

const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'an environment variable name (A-Z, 0-9, _)')

export const ServerName = z.string().regex(/^[a-z][a-z0-9-]{0,23}$/, 'lower-case letters, digits and -, at most 24')

export const ServerBody = z.object({
  name: ServerName,
  transport: z.enum(MCP_TRANSPORTS),
  command: z.string().trim().min(1).max(500).nullable().default(null),
  args: z.array(z.string().max(1000)).max(50).default([]),
  url: z.string().url().max(1000).nullable().default(null),
  envNames: z.array(EnvName).max(30).default([]),
  headerEnvName: EnvName.nullable().default(null),
  tenants: z.array(z.string().uuid()).max(200).nullable().default(null),
  enabled: z.boolean().default(true),
}).strict().superRefine((body, ctx) => {
  if (body.transport === 'stdio' && !body.command) ctx.addIssue({ code: 'custom', path: ['command'], message: 'a stdio server needs its command' })
  if (body.transport === 'http' && !body.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'an HTTP server needs its URL' })
  if (body.transport === 'http' && body.url && !/^https?:\/\//.test(body.url)) ctx.addIssue({ code: 'custom', path: ['url'], message: 'http or https only' })
})
export type ServerInput = z.output<typeof ServerBody>

export const ServerParams = z.object({ name: ServerName })
export const ClassifyBody = z.object({ tool: z.string().min(1).max(200), class: z.enum(TOOL_CLASSES).nullable() }).strict()

/** What the engine calls a server's tool: letters, digits, _ and - only (what every provider accepts), 64 at most. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^\w-]/g, '_')}`.slice(0, 64)
}

/** The hash of what the model is promised: a changed description or schema is a changed tool. */
export function schemaHash(description: string, inputSchema: unknown): string {
  return createHash('sha256').update(JSON.stringify([description, canonical(inputSchema)])).digest('hex')
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map(key => [key, canonical((value as Record<string, unknown>)[key])]))
  return value
}

/**
 * MCP_HTTP_ALLOWLIST: comma-separated URL prefixes (`https://mcp.example.com/`, `http://127.0.0.1:3001/mcp`).
 * A server's URL must start with one of them, compared after URL normalisation; empty: no HTTP server.
 */
export function readHttpAllowlist(env: Record<string, string | undefined>): string[] {
  return (env.MCP_HTTP_ALLOWLIST ?? '').split(',').map(entry => entry.trim()).filter(Boolean).map(entry => new URL(entry).href)
}

export function urlAllowed(url: string, allowlist: readonly string[]): boolean {
  let href: string
  try {
    href = new URL(url).href
  }
  catch {
    return false
  }
  return allowlist.some((entry) => {
    if (!href.startsWith(entry)) return false
    // A prefix ends at a path boundary: http://host/mcp allows /mcp and /mcp/x, never /mcpevil or host.evil.
    return entry.endsWith('/') || href.length === entry.length || '/?#'.includes(href[entry.length]!)
  })
}
