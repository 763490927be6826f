// MCP tools as the engine's tools (issue 35, Deliver 1): each listed tool of an enabled server
// is a ToolDefinition named mcp__<server>__<tool> with the class a founder gave it; an
// unclassified one stays in the registry (so a call to it is refused by the policy, with a
// step, and never reaches the server) but is never offered to a model; a WRITE waits for an
// approval (the hub cannot undo a third party's write). A result is cut at a
// size cap and handed to the model as untrusted data between the prompt's delimiters.
import { z } from 'zod'
import type { McpServerRow, McpToolRow } from '#db/schema/mcp'
import type { UntrustedFence } from '../custom/webhooks'
import { createToolRegistry, ToolError, type ToolDefinition, type ToolRegistry, type ToolRunContext } from '../engine/tools'
import type { ToolClass } from '../engine/vocabulary'
import { MCP_CALL_TIMEOUT_MS, MCP_RESULT_CHARS, mcpToolName } from './config'
import type { McpCallResult, McpManager } from './connections'

export interface McpToolDeps {
  manager: Pick<McpManager, 'callTool' | 'readResource' | 'getPrompt'>
  fence: () => UntrustedFence
  timeoutMs?: number
  resultChars?: number
}

const ResourceInput = z.object({ uri: z.string().min(1).max(2000) }).strict()
const PromptInput = z
  .object({ name: z.string().min(1).max(200), arguments: z.record(z.string(), z.string().max(10_000)).optional() })
  .strict()
const AnyInput = z.record(z.string(), z.unknown())

/** The text of a tool's result: its text parts, a line for any other part, its structured content. */
export function resultText(result: McpCallResult): string {
  const parts = (result.content ?? []).map((part) => {
    if (part.type === 'text') return part.text ?? ''
    if (part.type === 'resource') return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`
    if (part.type === 'resource_link') return `[resource link ${part.uri ?? ''}]`
    return `[${part.type}${part.mimeType ? ` ${part.mimeType}` : ''}${part.data ? `, ${Math.round(part.data.length * 3 / 4)} bytes` : ''}]`
  })
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent))
  return parts.join('\n')
}

function fenced(deps: McpToolDeps, what: string, text: string): string {
  const cap = deps.resultChars ?? MCP_RESULT_CHARS
  const cut = text.length > cap ? `${text.slice(0, cap)}\n[result cut at ${cap} characters]` : text
  return deps.fence().block(what, [cut]).join('\n')
}

/** A tool served on a run scoped to clients only when the server serves each of them (null: every client). */
function tenantGuard(server: McpServerRow) {
  return async (_input: unknown, ctx: ToolRunContext): Promise<string | null> => {
    if (!server.tenants || !ctx.tenants) return null
    const outside = ctx.tenants.length === 0 ? ['(no client)'] : ctx.tenants.filter(tenant => !server.tenants!.includes(tenant))
    return outside.length > 0 ? `the MCP server ${server.name} does not serve this run's clients` : null
  }
}

export function mcpToolDefinition(deps: McpToolDeps, server: McpServerRow, row: McpToolRow): ToolDefinition {
  const timeout = deps.timeoutMs ?? MCP_CALL_TIMEOUT_MS
  const toolClass = (row.class ?? 'DESTRUCTIVE') as ToolClass
  const what = `the answer of ${row.name} on the MCP server ${server.name}, a third party`
  const common = {
    name: mcpToolName(server.name, row.name),
    // Pickers (allowlist, studio policy) show the description: an unclassified tool says it is refused.
    description: `[MCP ${server.name}]${row.class ? '' : ' [unclassified: refused until a founder classifies it]'} ${row.description}`.slice(0, 2000),
    class: toolClass,
    // Unclassified: refused by the policy before anything; the stand-in class is the most guarded one.
    ...(row.class ? {} : { unclassified: true }),
    inputSchema: row.inputSchema,
    thirdParty: true,
    // A third party's write cannot be taken back by the hub.
    ...(toolClass === 'READ' ? {} : { undo: 'not_undoable' as const }),
    guard: tenantGuard(server),
  }
  const failing = (error: unknown): never => {
    if (error instanceof ToolError) throw error
    throw new ToolError('mcp_call_failed', (error as Error).message.slice(0, 1000))
  }
  if (row.kind === 'resources') {
    return {
      ...common, input: ResourceInput,
      run: async (input) => {
        const read = await deps.manager.readResource(server.name, (input as z.output<typeof ResourceInput>).uri, timeout).catch(failing)
        const text = read.contents.map(content => ('text' in content ? String(content.text) : `[${content.mimeType ?? 'binary'} ${content.uri}]`)).join('\n')
        return { output: fenced(deps, what, text), sources: [{ kind: 'mcp', ref: `${server.name}:${(input as { uri: string }).uri}`.slice(0, 500), title: `MCP ${server.name} resource` }] }
      },
    } as ToolDefinition
  }
  if (row.kind === 'prompts') {
    return {
      ...common, input: PromptInput,
      run: async (input) => {
        const asked = input as z.output<typeof PromptInput>
        const prompt = await deps.manager.getPrompt(server.name, asked.name, asked.arguments ?? {}, timeout).catch(failing)
        const text = prompt.messages.map(message => `${message.role}: ${message.content.type === 'text' ? message.content.text : `[${message.content.type}]`}`).join('\n')
        return { output: fenced(deps, what, text) }
      },
    } as ToolDefinition
  }
  return {
    ...common, input: AnyInput,
    run: async (input) => {
      const result = await deps.manager.callTool(server.name, row.name, input as Record<string, unknown>, timeout).catch(failing)
      const text = resultText(result)
      if (result.isError) throw new ToolError('mcp_tool_error', fenced(deps, what, text))
      return { output: fenced(deps, what, text) }
    },
  } as ToolDefinition
}

/** The registry of the enabled servers' present tools (a down server's tools stay: a call says it is down). */
export function mcpRegistry(deps: McpToolDeps, servers: McpServerRow[], tools: McpToolRow[]): ToolRegistry {
  const enabled = new Map(servers.filter(server => server.enabled).map(server => [server.name, server]))
  const definitions = tools
    .filter(tool => tool.present && enabled.has(tool.server))
    .map(tool => mcpToolDefinition(deps, enabled.get(tool.server)!, tool))
  // Two tools whose names clash once made safe: the first keeps the name, the other is not offered.
  const seen = new Set<string>()
  return createToolRegistry(definitions.filter(tool => !seen.has(tool.name) && seen.add(tool.name)))
}

/** A registry plus tools that appear at run time (`extra` is asked at each use; a built-in name wins). */
export function extendRegistry(base: ToolRegistry, extra: () => ToolRegistry | null): ToolRegistry {
  return {
    get: name => base.get(name) ?? extra()?.get(name),
    list: () => {
      const more = extra()?.list().filter(tool => !base.get(tool.name)) ?? []
      return [...base.list(), ...more]
    },
    specs: (names) => {
      const more = extra()
      if (!names) return [...base.specs(), ...(more?.specs().filter(spec => !base.get(spec.name)) ?? [])]
      return names.flatMap(name => (base.get(name) ? base.specs([name]) : more?.get(name) ? more.specs([name]) : []))
    },
  }
}
