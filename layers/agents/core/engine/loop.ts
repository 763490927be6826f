// The ReAct loop (issue 19, Deliver 2): model turn → tool calls, each checked by the policy
// before it runs → results back to the model → … until an answer, a budget, an error or an
// approval pauses the run. Every turn and every call is a step row; the conversation is kept
// on the run so a paused run resumes exactly where it stopped.
import type { ToolChatRequest, ToolChatResult } from '../../../ai/core/tool-chat'
import type { ChatMessage, ToolCall } from '../../../ai/core/clients/types'
import type { Db } from '../../../../db/connection'
import { agentApprovals } from '../../../../db/schema/agent-runs'
import { RunContextInput, type RunContext, type RunContextRequest } from './context'
import { EngineError } from './errors'
import { checkPolicy } from './policy'
import type { ToolPorts } from './ports'
import { promptLayers, systemPrompt, type PromptLayer } from './prompt'
import { hasStandingApproval } from './standing'
import { appendStep, getRun, insertRun, ledgerCost, truncate, updateRun, updateStep, type AgentRun, type AgentRunStep } from './store'
import { ToolError, type ToolDefinition, type ToolRegistry } from './tools'
import { assertWithinLimits, type PersonLimits } from './usage'
import { APPROVAL_TTL_MS, ENGINE_FEATURE, MODEL_OUTPUT_CHARS, type RunStatus } from './vocabulary'

export interface EngineDeps {
  db: Db
  /** The facade's chatWithTools. */
  chat: (request: ToolChatRequest) => Promise<ToolChatResult>
  /** Waits for the ledger rows (the run's cost is read from them). */
  flushLedger?: () => Promise<void>
  registry: ToolRegistry
  ports: ToolPorts
  now?: () => Date
  log?: (line: string) => void
  /** Per-person limits checked before a run starts (none: unlimited). */
  limits?: PersonLimits
}

const clock = (deps: EngineDeps) => (deps.now ?? (() => new Date()))()

export function parseRunContext(request: RunContextRequest): RunContext {
  const parsed = RunContextInput.safeParse(request)
  if (!parsed.success) throw new EngineError('invalid_context', parsed.error.issues.map(issue => `${issue.path.join('.')}: ${issue.message}`).join('; '))
  return parsed.data
}

/** Starts a run and drives it until it ends or waits for an approval. */
export async function startRun(deps: EngineDeps, request: RunContextRequest): Promise<AgentRun> {
  const context = parseRunContext(request)
  if (deps.limits) await assertWithinLimits(deps.db, context.actingUser.email, deps.limits, clock(deps))
  const run = await insertRun(deps.db, {
    surface: context.surface,
    trigger: context.trigger,
    agent: context.agent.codename,
    actingUserId: context.actingUser.id,
    actingEmail: context.actingUser.email,
    actingRole: context.actingUser.role,
    ownerEmail: context.agent.ownerEmail,
    regime: context.regime,
    request: context.request,
    context: context as unknown as Record<string, unknown>,
    promptLayers: promptLayers(context),
    conversation: [{ role: 'user', content: context.request } satisfies ChatMessage],
    parentRunId: context.parentRunId,
    rerunOf: context.rerunOf,
  })
  return await driveRun(deps, run.id)
}

async function finish(deps: EngineDeps, run: AgentRun, status: RunStatus, patch: { answer?: string, error?: string }): Promise<AgentRun> {
  await deps.flushLedger?.()
  await updateRun(deps.db, run.id, { status, ...patch, costUsd: await ledgerCost(deps.db, run.id), endedAt: clock(deps) })
  return (await getRun(deps.db, run.id))!
}

/** Runs the loop of a run whose status is `running` (a new one, or one whose approvals are all decided). */
export async function driveRun(deps: EngineDeps, runId: string): Promise<AgentRun> {
  const found = await getRun(deps.db, runId)
  if (!found) throw new EngineError('not_found', `no run ${runId}`, 404)
  let run: AgentRun = found
  if (run.status !== 'running') return run
  const context = run.context as unknown as RunContext
  const messages = run.conversation as ChatMessage[]
  const system = systemPrompt(run.promptLayers as PromptLayer[])
  const tools = deps.registry.specs(context.regime === 'allowlist' ? context.allowlist : undefined)
  for (;;) {
    if (run.iterations >= context.budget.iterations) return await finish(deps, run, 'stopped', { error: `budget: ${context.budget.iterations} iterations used` })
    if (run.tokensIn + run.tokensOut >= context.budget.tokens) return await finish(deps, run, 'stopped', { error: `budget: ${context.budget.tokens} tokens used` })
    let turn: ToolChatResult
    const started = Date.now()
    try {
      turn = await deps.chat({
        feature: ENGINE_FEATURE,
        system,
        messages,
        tools,
        actor: context.actingUser.email,
        // After the first turn the run is pinned to who answered it: no silent model change.
        ...(run.provider && run.model
          ? { pinned: { provider: run.provider as never, model: run.model } }
          : { provider: context.modelRequest.provider, model: context.modelRequest.model }),
      })
    }
    catch (error) {
      await appendStep(deps.db, run.id, { kind: 'model', status: 'error', error: (error as Error).message.slice(0, 2000), durationMs: Date.now() - started })
      return await finish(deps, run, 'failed', { error: (error as Error).message.slice(0, 2000) })
    }
    await appendStep(deps.db, run.id, {
      kind: 'model', status: 'ok', thought: turn.content || null, callId: turn.callId, provider: turn.provider, model: turn.model,
      tokensIn: turn.tokensIn, tokensOut: turn.tokensOut, durationMs: turn.durationMs,
      input: turn.toolCalls.length > 0 ? turn.toolCalls.map(call => ({ id: call.id, name: call.name, arguments: call.rawArguments.slice(0, 2000) })) : null,
    })
    const counters: Pick<AgentRun, 'iterations' | 'tokensIn' | 'tokensOut' | 'provider' | 'model'> = {
      iterations: run.iterations + 1,
      tokensIn: run.tokensIn + turn.tokensIn,
      tokensOut: run.tokensOut + turn.tokensOut,
      provider: run.provider ?? turn.provider,
      model: run.model ?? turn.model,
    }
    if (turn.toolCalls.length === 0) {
      messages.push({ role: 'assistant', content: turn.content })
      await updateRun(deps.db, run.id, { ...counters, conversation: messages })
      run = { ...run, ...counters }
      return await finish(deps, run, 'succeeded', { answer: turn.content })
    }
    messages.push({ role: 'assistant', content: turn.content, toolCalls: turn.toolCalls })
    let waiting = false
    for (const call of turn.toolCalls) {
      const reply = await handleCall(deps, run, context, call)
      if (reply) messages.push(reply)
      else waiting = true
    }
    run = { ...run, ...counters }
    await updateRun(deps.db, run.id, { ...counters, conversation: messages, ...(waiting ? { status: 'awaiting_approval' } : {}) })
    if (waiting) return (await getRun(deps.db, run.id))!
    if (context.budget.costUsd > 0 && turn.provider !== 'offline') {
      await deps.flushLedger?.()
      const cost = await ledgerCost(deps.db, run.id)
      if (cost >= context.budget.costUsd) return await finish(deps, run, 'stopped', { error: `budget: $${context.budget.costUsd} spent` })
    }
  }
}

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>

const toolMessage = (call: ToolCall, content: string, isError = false): ToolMessage =>
  ({ role: 'tool', toolCallId: call.id, name: call.name, content: truncate(content, MODEL_OUTPUT_CHARS), ...(isError ? { isError: true } : {}) })

/** One tool call: policy, input, guard, approval or execution. Null: it waits for an approval. */
async function handleCall(deps: EngineDeps, run: AgentRun, context: RunContext, call: ToolCall): Promise<ToolMessage | null> {
  const tool = deps.registry.get(call.name)
  const base = { kind: 'tool' as const, tool: call.name.slice(0, 64), toolCallId: call.id.slice(0, 200), toolClass: tool?.class ?? null, input: call.error ? { raw: call.rawArguments.slice(0, 2000) } : call.input }
  const refuse = async (status: 'error' | 'denied', error: string) => {
    await appendStep(deps.db, run.id, { ...base, status, error })
    return toolMessage(call, `${status === 'denied' ? 'Refused' : 'Error'}: ${error}`, true)
  }
  if (call.error) return await refuse('error', call.error)
  const standing = tool?.class === 'EXTERNAL_WRITE' ? await hasStandingApproval(deps.db, context.agent.codename, tool.name) : false
  const decision = checkPolicy({ name: call.name, tool, regime: context.regime, role: context.actingUser.role, allowlist: context.allowlist, standing })
  if (decision.kind === 'deny') return await refuse('denied', `${decision.code}: ${decision.reason}`)
  const parsed = tool!.input.safeParse(call.input)
  if (!parsed.success) return await refuse('error', `invalid_input: ${parsed.error.issues.map(issue => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}`)
  const ctx = { ports: deps.ports, actor: `agent-run:${run.id}:${context.actingUser.email}`, runId: run.id }
  const refusal = tool!.guard ? await tool!.guard(parsed.data, ctx) : null
  if (refusal) return await refuse('denied', `guard: ${refusal}`)
  if (decision.kind === 'ask') {
    const step = await appendStep(deps.db, run.id, { ...base, input: parsed.data, status: 'awaiting_approval' })
    const requestedAt = clock(deps)
    await deps.db.insert(agentApprovals).values({
      runId: run.id, stepId: step.id, agent: context.agent.codename, tool: tool!.name, payload: parsed.data as Record<string, unknown>,
      askedOf: context.trigger === 'autonomous' ? context.agent.ownerEmail : context.actingUser.email,
      requestedAt, expiresAt: new Date(requestedAt.getTime() + APPROVAL_TTL_MS),
    })
    return null
  }
  const step = await appendStep(deps.db, run.id, { ...base, input: parsed.data, status: 'ok' })
  return await executeTool(deps, tool!, call, parsed.data, step, ctx)
}

/** Runs a tool whose call passed the policy (or was approved) and records its outcome on the step. */
export async function executeTool(deps: EngineDeps, tool: ToolDefinition, call: ToolCall, input: unknown, step: AgentRunStep, ctx: { ports: ToolPorts, actor: string, runId: string }): Promise<ToolMessage> {
  const started = Date.now()
  try {
    const outcome = await tool.run(input, ctx)
    const text = typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output)
    await updateStep(deps.db, step.id, { status: 'ok', output: truncate(text), sources: outcome.sources ?? [], write: (outcome.write ?? null) as Record<string, unknown> | null, durationMs: Date.now() - started })
    return toolMessage(call, text)
  }
  catch (error) {
    // A failing tool is a step error the model sees, never a crash of the run.
    const code = error instanceof ToolError ? error.code : 'tool_failed'
    const message = `${code}: ${(error as Error).message}`.slice(0, 2000)
    deps.log?.(`[agents] run ${ctx.runId}: ${tool.name} failed (${message})`)
    await updateStep(deps.db, step.id, { status: 'error', error: message, durationMs: Date.now() - started })
    return toolMessage(call, `Error: ${message}`, true)
  }
}
