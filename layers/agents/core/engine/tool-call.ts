// One tool call of a run: the policy, the input, the guard, then an approval to ask for or
// the tool run (a failing tool is a step error the model sees).
import type { ChatMessage, ToolCall } from '#layers/ai/core/clients/types'
import type { RunContext } from './context'
import type { EngineDeps } from './engine-deps'
import { checkPolicy } from './policy'
import { hasStandingApproval } from './standing'
import { truncate, updateStep, type AgentRun, type AgentRunStep, type StepInsert } from './store'
import { ToolError, type ToolDefinition, type ToolRunContext } from './tools'
import type { PendingApproval } from './turn-record'
import { MODEL_OUTPUT_CHARS } from './vocabulary'

export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>

/** `stored`: what the run row keeps instead of `message` (the model alone saw the original). */
export interface HandledCall { step: StepInsert, message: ToolMessage | null, stored?: ToolMessage, approval?: PendingApproval }

const toolMessage = (call: ToolCall, content: string, isError = false): ToolMessage =>
  ({ role: 'tool', toolCallId: call.id, name: call.name, content: truncate(content, MODEL_OUTPUT_CHARS), ...(isError ? { isError: true } : {}) })

/** One tool call: policy, input, guard, then an approval to ask for or the tool's outcome (nothing written yet). */
export async function handleCall(deps: EngineDeps, run: AgentRun, context: RunContext, call: ToolCall): Promise<HandledCall> {
  const tool = deps.registry.get(call.name)
  const base = { kind: 'tool' as const, tool: call.name.slice(0, 64), toolCallId: call.id.slice(0, 200), toolClass: tool && !tool.unclassified ? tool.class : null, input: call.error ? { raw: call.rawArguments.slice(0, 2000) } : call.input }
  const refuse = (status: 'error' | 'denied', error: string): HandledCall =>
    ({ step: { ...base, status, error }, message: toolMessage(call, `${status === 'denied' ? 'Refused' : 'Error'}: ${error}`, true) })
  if (call.error) return refuse('error', call.error)
  const standing = tool && (tool.class === 'EXTERNAL_WRITE' || (tool.thirdParty && tool.class === 'WRITE')) ? await hasStandingApproval(deps.db, context.agent.codename, tool.name) : false
  const decision = checkPolicy({
    name: call.name,
    tool,
    regime: context.regime,
    role: context.actingUser.role,
    allowlist: context.allowlist,
    standing,
    skillTools: context.skillTools ?? null,
  })
  if (decision.kind === 'deny') return refuse('denied', `${decision.code}: ${decision.reason}`)
  const parsed = tool!.input.safeParse(call.input)
  if (!parsed.success) return refuse('error', `invalid_input: ${parsed.error.issues.map(issue => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}`)
  const ctx: ToolRunContext = { ports: deps.ports, actor: `agent-run:${run.id}:${context.actingUser.email}`, runId: run.id, owner: context.agent.ownerEmail, agent: context.agent.codename, tenants: context.regime === 'allowlist' ? context.tenants : null, context }
  const refusal = tool!.guard ? await tool!.guard(parsed.data, ctx) : null
  if (refusal) return refuse('denied', `guard: ${refusal}`)
  if (decision.kind === 'ask') {
    return {
      step: { ...base, input: parsed.data, status: 'awaiting_approval' },
      message: null,
      approval: { agent: context.agent.codename, tool: tool!.name, payload: parsed.data as Record<string, unknown>, askedOf: context.trigger === 'autonomous' ? context.agent.ownerEmail : context.actingUser.email },
    }
  }
  const { patch, message, stored } = await runTool(deps, tool!, call, parsed.data, ctx)
  return { step: { ...base, input: parsed.data, ...patch }, message, ...(stored ? { stored } : {}) }
}

type StepOutcome = Pick<StepInsert, 'status' | 'output' | 'sources' | 'write' | 'error' | 'durationMs'>

/** Runs a tool; a failing tool is a step error the model sees, never a crash of the run. */
async function runTool(
  deps: EngineDeps,
  tool: ToolDefinition,
  call: ToolCall,
  input: unknown,
  ctx: ToolRunContext,
): Promise<{ patch: StepOutcome, message: ToolMessage, stored?: ToolMessage }> {
  const started = Date.now()
  try {
    const outcome = await tool.run(input, ctx)
    const text = typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output)
    return {
      patch: {
        status: 'ok',
        output: truncate(outcome.unstored ?? text),
        sources: outcome.sources ?? [],
        write: (outcome.write ?? null) as Record<string, unknown> | null,
        durationMs: Date.now() - started,
      },
      message: toolMessage(call, text),
      ...(outcome.unstored !== undefined ? { stored: toolMessage(call, outcome.unstored) } : {}),
    }
  }
  catch (error) {
    const code = error instanceof ToolError ? error.code : 'tool_failed'
    const message = `${code}: ${(error as Error).message}`.slice(0, 2000)
    deps.log?.(`[agents] run ${ctx.runId}: ${tool.name} failed (${message})`)
    return {
      patch: { status: 'error', error: message, durationMs: Date.now() - started },
      message: toolMessage(call, `Error: ${message}`, true),
    }
  }
}

/** Runs an approved call with its stored payload and records the outcome on its step. */
export async function executeTool(
  deps: EngineDeps,
  tool: ToolDefinition,
  call: ToolCall,
  input: unknown,
  step: AgentRunStep,
  ctx: ToolRunContext,
): Promise<ToolMessage> {
  const { patch, message, stored } = await runTool(deps, tool, call, input, ctx)
  await updateStep(deps.db, step.id, patch)
  return stored ?? message
}
