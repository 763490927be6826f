// Delegation (seed 003 §12.7): `delegate_to_agent` hands a sub-task to another custom agent.
// The tool is visible only to an agent allowed to delegate (access.ts adds it); the child is a
// real run (parent_run_id) under the child's own allowlist, with the context the parent
// passes explicitly — nothing else of the parent's conversation — and the shared budget.
import { z } from 'zod'
import { createToolRegistry, defineTool, ToolError, type ToolDefinition, type ToolRegistry } from '../engine/tools'
import { FIRST_TOOLS } from '../engine/first-tools'
import { FILE_TOOLS } from '../engine/file-tools'
import { WRITE_TOOLS } from '../engine/write-tools'
import { startRun, type EngineDeps } from '../engine/loop'
import { getRun } from '../engine/store'
import type { ToolPorts } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { customRunContext, DELEGATE_TOOL, type StudioPolicy } from './access'
import { DRAFT_CUSTOM_AGENT } from './draft-tool'
import { currentMcpRuntime } from '../mcp/runtime'
import { extendRegistry } from '../mcp/tools'

export const DELEGATE_TO_AGENT: ToolDefinition = defineTool({
  name: DELEGATE_TOOL,
  description: 'Hand a sub-task to another custom agent: it runs under its own access with only the context you give it, and its answer comes back.',
  class: 'WRITE',
  undo: 'not_undoable',
  allowlistOnly: true,
  input: z.object({
    codename: z.string().trim().min(1).max(64),
    request: z.string().trim().min(1).max(20_000),
    context: z.string().max(20_000).default(''),
  }),
  run: async (input, { ports, runId, context, agent }) => {
    if (!ports.delegate || !context) throw new ToolError('no_delegation', 'delegation is not available to this run')
    if (input.codename === agent) throw new ToolError('self_delegation', 'an agent cannot delegate to itself')
    const child = await ports.delegate(input, { runId, context })
    return { output: child, sources: [{ kind: 'agent_run', ref: child.runId, title: `Run of ${input.codename}` }], write: { entity: 'agent_run', id: child.runId, snapshot: null, undoable: false } }
  },
})

/** The hub's own tools (not an MCP server's): the pages show their descriptions from the catalogs (`agents.tools.<name>`). */
export const BUILT_IN_TOOLS: readonly ToolDefinition[] = [
  ...FIRST_TOOLS, ...FILE_TOOLS, ...WRITE_TOOLS, DELEGATE_TO_AGENT, DRAFT_CUSTOM_AGENT,
]

let shared: ToolRegistry | undefined

/**
 * The hub's tools: the first tools, the files tools, the personal agent's changes, delegation
 * and agent drafting (built once: its JSON schemas are computed at creation), plus the MCP
 * servers' tools as the process's MCP runtime last listed and classified them (asked at each
 * use: they change at run time).
 */
export function customToolRegistry(): ToolRegistry {
  return (shared ??= extendRegistry(
    createToolRegistry([...BUILT_IN_TOOLS]),
    () => currentMcpRuntime()?.registry() ?? null,
  ))
}

/** The `delegate` port: builds the child's context (depth cap, its own allowlist, shared budget) and drives it. */
export function delegatePort(getDeps: () => EngineDeps, policy?: StudioPolicy): NonNullable<ToolPorts['delegate']> {
  return async (input, parent) => {
    const deps = getDeps()
    const parentRun = await getRun(deps.db, parent.runId)
    if (!parentRun) throw new ToolError('not_found', `no run ${parent.runId}`)
    let context
    try {
      context = await customRunContext(
        deps.db,
        deps.registry,
        {
          codename: input.codename,
          request: input.request,
          extraContext: input.context || undefined,
          trigger: 'autonomous',
          surface: 'automate',
          parent: {
            runId: parent.runId,
            context: parent.context,
            usedTokens: parentRun.tokensIn + parentRun.tokensOut,
            usedCostUsd: parentRun.costUsd,
            usedIterations: parentRun.iterations,
          },
        },
        policy,
      )
    }
    catch (error) {
      if (error instanceof EngineError) throw new ToolError(error.code, error.message)
      throw error
    }
    const child = await startRun(deps, context)
    return { runId: child.id, status: child.status, answer: child.answer }
  }
}
