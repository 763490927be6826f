// The tool registry IS the policy (I14, P4): a tool declares its class, its input schema and,
// for a write, how it is undone (a snapshot) or that it is not undoable. A capability with no
// tool here does not exist for the agent: the model naming it gets a step error.
import { z } from 'zod'
import type { ToolSpec } from '#layers/ai/core/clients/types'
import type { ToolPorts } from './ports'
import type { ToolClass } from './vocabulary'

/** A tool's refusal the model is told about (a step error, not a crash). */
export class ToolError extends Error {
  constructor(readonly code: string, message: string) {
    super(message)
    this.name = 'ToolError'
  }
}

export interface ToolSource { kind: string, ref: string, title: string }

/** A write as recorded on its step: what it touched and what its undo applies. */
export interface ToolWrite {
  entity: string
  id: string
  /** The state before the write (null: the row or file did not exist). */
  snapshot: Record<string, unknown> | null
  undoable: boolean
}

export interface ToolOutcome {
  output: unknown
  sources?: ToolSource[]
  write?: ToolWrite
  /** Kept on the step and the run's conversation instead of `output`, which only the model sees (an image's OCR text is never stored). */
  unstored?: string
}

export interface ToolRunContext {
  ports: ToolPorts
  actor: string
  runId: string
  /** The agent's owner (whose instructions a proposal targets) and its codename. */
  owner?: string
  agent?: string
  /** The tenants the run may read (null: not scoped, the person's own rights in the `user` regime). */
  tenants?: string[] | null
  /** The run's typed context (delegation builds a child's from it). */
  context?: import('./context').RunContext
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType> {
  name: string
  description: string
  class: ToolClass
  input: I
  /** Writes only: `snapshot` (undo applies the step's snapshot) or `not_undoable`. */
  undo?: 'snapshot' | 'not_undoable'
  /** Only for `allowlist` runs that list it (delegation): never offered in the `user` regime. */
  allowlistOnly?: boolean
  /** A tool no founder classified yet (an MCP server's new or changed tool): never offered, every call refused. */
  unclassified?: boolean
  /** Acts outside the hub (an MCP server): its writes cannot be undone here, so every write class waits for approval. */
  thirdParty?: boolean
  /** The input's JSON schema as the model sees it, when it comes from elsewhere (an MCP server's listing). */
  inputSchema?: Record<string, unknown>
  /** Refusals decided on the input before any approval is asked (e.g. a mail to a client). */
  guard?: (input: z.output<I>, ctx: ToolRunContext) => Promise<string | null>
  run: (input: z.output<I>, ctx: ToolRunContext) => Promise<ToolOutcome>
  /** Applies a write's snapshot back (tools with undo: 'snapshot'). */
  revert?: (write: ToolWrite, ctx: ToolRunContext) => Promise<void>
}

export function defineTool<I extends z.ZodType>(tool: ToolDefinition<I>): ToolDefinition {
  if (tool.class !== 'READ' && !tool.undo) throw new Error(`tool ${tool.name}: a write declares how it is undone (snapshot or not_undoable)`)
  if (tool.undo === 'snapshot' && !tool.revert) throw new Error(`tool ${tool.name}: an undoable write needs revert()`)
  return tool as unknown as ToolDefinition
}

export interface ToolRegistry {
  get: (name: string) => ToolDefinition | undefined
  list: () => ToolDefinition[]
  /** The specs offered to a run: its allowlist's, or every tool a `user` run may see. */
  specs: (names?: string[]) => ToolSpec[]
}

export function createToolRegistry(tools: ToolDefinition[]): ToolRegistry {
  const byName = new Map<string, ToolDefinition>()
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`)
    byName.set(tool.name, tool)
  }
  // JSON schemas are computed once: a step must not pay for them (bench engine.overhead_ms_per_step).
  const specs = new Map(tools.map(tool => [tool.name, {
    name: tool.name,
    description: `${tool.description} [${tool.class}]`,
    inputSchema: tool.inputSchema ?? z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>,
  }]))
  return {
    get: name => byName.get(name),
    list: () => [...byName.values()],
    specs: names => (names
      ? names.filter(name => specs.has(name) && !byName.get(name)!.unclassified).map(name => specs.get(name)!)
      : tools.filter(tool => !tool.allowlistOnly && !tool.unclassified).map(tool => specs.get(tool.name)!)),
  }
}
