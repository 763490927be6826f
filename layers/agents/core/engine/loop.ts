// The ReAct loop (issue 19, Deliver 2): model turn → tool calls, each checked by the policy
// before it runs → results back to the model → … until an answer, a budget, an error or an
// approval pauses the run. Every turn and every call is a step row; the conversation is kept
// on the run so a paused run resumes exactly where it stopped.
import type { ToolChatRequest, ToolChatResult } from '#layers/ai/core/tool-chat'
import type { ChatMessage, ToolCall } from '#layers/ai/core/clients/types'
import type { Db } from '#db/connection'
import { eq, sql } from 'drizzle-orm'
import { agentApprovals, agentRunSteps, agentRuns } from '#db/schema/agent-runs'
import { RunContextInput, type RunContext, type RunContextRequest } from './context'
import { EngineError } from './errors'
import { modelSurfaceOf, resolveModel, surfaceModels, type ProviderAvailability } from './models'
import { checkPolicy } from './policy'
import type { ToolPorts } from './ports'
import { promptLayers, systemPrompt, type PromptLayer } from './prompt'
import { hasStandingApproval } from './standing'
import { appendStep, getRun, insertRun, runner, ledgerCost, truncate, updateRun, updateStep, type AgentRun, type AgentRunStep, type StepInsert } from './store'
import { ToolError, type ToolDefinition, type ToolRegistry, type ToolRunContext } from './tools'
import { assertWithinLimits, type PersonLimits } from './usage'
import { assertWithinBudgets } from './budget'
import { runFailureReason } from './failure-words'
import { namesInChoice, nameSkills, skillToolLimit, type SkillRouterPort } from './skills'
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
  /** Which providers can answer now (the Auto rule of models.ts; none given: all count as unavailable). */
  providers?: () => ProviderAvailability[]
  /** The skills library's router (wired by the hub); none: only the caller's forced skills. */
  skillRouter?: SkillRouterPort
}

const clock = (deps: EngineDeps) => (deps.now ?? (() => new Date()))()

export function parseRunContext(request: RunContextRequest): RunContext {
  const parsed = RunContextInput.safeParse(request)
  if (!parsed.success) throw new EngineError('invalid_context', parsed.error.issues.map(issue => `${issue.path.join('.')}: ${issue.message}`).join('; '))
  return parsed.data
}

/** Starts a run and drives it until it ends or waits for an approval. */
export async function startRun(deps: EngineDeps, request: RunContextRequest): Promise<AgentRun> {
  const run = await createRun(deps, request)
  return await driveRun(deps, run.id)
}

/** Checks the context, the person's limits and the budgets, and writes the run's row, without driving it (the hub chat streams it). */
export async function createRun(deps: EngineDeps, request: RunContextRequest): Promise<AgentRun> {
  const parsed = parseRunContext(request)
  if (deps.limits) await assertWithinLimits(deps.db, parsed.actingUser.email, deps.limits, clock(deps))
  // The model is decided once, before the run exists: a model the surface does not allow is refused here.
  const allowed = await surfaceModels(deps.db, modelSurfaceOf(parsed.agent.codename))
  const resolution = resolveModel(allowed, deps.providers?.() ?? [], { request: parsed.modelRequest, preference: parsed.modelPreference })
  // The monthly budgets (person and agent): a reached one refuses the run unless its model is included.
  const firstModel = resolution.first ?? (parsed.modelRequest.provider === 'auto' ? null : parsed.modelRequest)
  await assertWithinBudgets(deps.db, { email: parsed.actingUser.email, agent: parsed.agent.codename, model: firstModel }, clock(deps), deps.flushLedger)
  let context: RunContext = { ...parsed, modelResolution: resolution }
  // The library routes only a person's own runs: an allowlist run (a custom agent) uses the
  // skills its allowlist gives it and nothing from its owner's library (P3, seed 003 §16.1).
  const selection = deps.skillRouter && context.regime === 'user' ? await selectSkills(deps, deps.skillRouter, context) : null
  if (selection) {
    const given = new Set(context.forcedSkills.map(s => s.name))
    const added = selection.skills.filter(s => !given.has(s.name))
    context = { ...context, forcedSkills: [...context.forcedSkills, ...added.map(s => ({ name: s.name, text: s.text }))].slice(0, 10), skillTools: skillToolLimit(selection.skills, context.skillTools) }
  }
  const run = await insertRun(deps.db, {
    ...runner(),
    modelNote: resolution.note,
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
    conversationId: context.conversationId,
  })
  if (selection) {
    const names = selection.skills.map(s => s.name)
    await appendStep(deps.db, run.id, { kind: 'skills', status: 'ok', skills: names, input: selection.decision, output: names.length > 0 ? `skills: ${names.join(', ')}` : 'no skill' })
    await deps.skillRouter!.recordUse(run.id, context.actingUser.email, selection.skills)
  }
  return run
}

/** Asks the skills library; between the thresholds the run's model chooses, unless the run is offline. */
async function selectSkills(deps: EngineDeps, router: SkillRouterPort, context: RunContext) {
  const first = context.modelResolution?.first
  const ask = modelAsk(context)
  // No surface list (Auto): online when a real completion provider is configured, as the run's first turn will be.
  const online = first
    ? first.provider !== 'offline'
    : ask.provider !== 'offline' && (deps.providers?.() ?? []).some(p => p.configured && p.provider !== 'offline' && p.provider !== 'voyage' && !p.coolingDown)
  const choose = online
    ? async (request: string, candidates: Array<{ name: string, description: string }>) => {
      const turn = await deps.chat({
        feature: ENGINE_FEATURE, ...ask, actor: context.actingUser.email, agent: context.agent.codename, tools: [],
        system: 'Pick the skills (at most two) that fit the request, among the candidates only. Answer with a JSON array of their names, [] for none.',
        messages: [{ role: 'user', content: `Request: ${request}\n\nCandidates:\n${candidates.map(c => `- ${c.name}: ${c.description}`).join('\n')}` }],
      })
      // Every name it said: the router applies only candidates and logs the others.
      return namesInChoice(turn.content)
    }
    : undefined
  return await router.select({ email: context.actingUser.email, request: context.request, forced: context.forcedSkills.map(s => s.name), ...(choose ? { choose } : {}) })
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
  // What the run row keeps: the conversation, except the outputs a tool asked not to store (an image's OCR text).
  const kept = [...messages]
  const system = systemPrompt(run.promptLayers as PromptLayer[])
  const allowed = context.regime === 'allowlist' ? context.allowlist : undefined
  const skillTools = context.skillTools ?? null
  // A skill narrows the tools, never widens them: the intersection with the regime's list.
  const tools = deps.registry.specs(skillTools ? (allowed ?? deps.registry.list().map(t => t.name)).filter(name => skillTools.includes(name)) : allowed)
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
        agent: context.agent.codename,
        // After the first turn the run is pinned to who answered it: no silent model change.
        ...(run.provider && run.model
          ? { pinned: { provider: run.provider as never, model: run.model } }
          : modelAsk(context)),
      })
    }
    catch (error) {
      // The step keeps the provider's own message; the run says it in words (failure-words.ts).
      await appendStep(deps.db, run.id, { kind: 'model', status: 'error', error: (error as Error).message.slice(0, 2000), durationMs: Date.now() - started })
      return await finish(deps, run, 'failed', { error: runFailureReason(error) })
    }
    const modelStep: StepInsert = {
      kind: 'model', status: 'ok', thought: turn.content || null, callId: turn.callId, provider: turn.provider, model: turn.model,
      tokensIn: turn.tokensIn, tokensOut: turn.tokensOut, durationMs: turn.durationMs,
      // The skills the model worked with on this turn (forced ones are in its prompt): the run names them.
      skills: context.forcedSkills.map(skill => skill.name),
      input: turn.toolCalls.length > 0 ? turn.toolCalls.map(call => ({ id: call.id, name: call.name, arguments: call.rawArguments.slice(0, 2000) })) : null,
    }
    const counters: Pick<AgentRun, 'iterations' | 'tokensIn' | 'tokensOut' | 'provider' | 'model'> = {
      iterations: run.iterations + 1,
      tokensIn: run.tokensIn + turn.tokensIn,
      tokensOut: run.tokensOut + turn.tokensOut,
      provider: run.provider ?? turn.provider,
      model: run.model ?? turn.model,
    }
    const persisted = kept.length
    const said: ChatMessage = turn.toolCalls.length > 0 ? { role: 'assistant', content: turn.content, toolCalls: turn.toolCalls } : { role: 'assistant', content: turn.content }
    messages.push(said)
    kept.push(said)
    const handled: HandledCall[] = []
    for (const call of turn.toolCalls) {
      const outcome = await handleCall(deps, run, context, call)
      handled.push(outcome)
      if (outcome.message) {
        messages.push(outcome.message)
        kept.push(outcome.stored ?? outcome.message)
      }
    }
    const waiting = handled.some(outcome => outcome.approval)
    run = { ...run, ...counters }
    await recordTurn(deps, run.id, [modelStep, ...handled.map(outcome => outcome.step)], handled.map(outcome => outcome.approval ?? null), {
      ...counters, conversation: kept, ...(waiting ? { status: 'awaiting_approval' } : {}),
    }, kept.slice(persisted))
    if (turn.toolCalls.length === 0) return await finish(deps, run, 'succeeded', { answer: nameSkills(turn.content, context.forcedSkills.map(s => s.name)) })
    if (waiting) return (await getRun(deps.db, run.id))!
    if (context.budget.costUsd > 0 && turn.provider !== 'offline') {
      await deps.flushLedger?.()
      const cost = await ledgerCost(deps.db, run.id)
      if (cost >= context.budget.costUsd) return await finish(deps, run, 'stopped', { error: `budget: $${context.budget.costUsd} spent` })
    }
  }
}

/** The first turn's model: the engine's resolution (restricted to the surface's list), else the request as is. */
function modelAsk(context: RunContext): Pick<ToolChatRequest, 'provider' | 'model' | 'candidates'> {
  const resolution = context.modelResolution
  if (resolution?.first) return { provider: resolution.first.provider, model: resolution.first.model, ...(resolution.candidates ? { candidates: resolution.candidates } : {}) }
  return { provider: context.modelRequest.provider, model: context.modelRequest.model }
}

interface PendingApproval { agent: string, tool: string, payload: Record<string, unknown>, askedOf: string }
/** `stored`: what the run row keeps instead of `message` (the model alone saw the original). */
interface HandledCall { step: StepInsert, message: ToolMessage | null, stored?: ToolMessage, approval?: PendingApproval }

/**
 * A turn's rows in ONE transaction: the model step, its tool steps, the approvals they wait
 * for, the run's counters and conversation. An ordinary turn commits asynchronously
 * (synchronous_commit off: a crash may lose the last fraction of a second of run log, never
 * corrupt it, and the tools' own writes keep their durability) — waiting for the disk at
 * every step would cost more than the step itself. A turn that asks for an approval commits
 * durably: nobody must be left waiting on an approval the database forgot.
 */
async function recordTurn(deps: EngineDeps, runId: string, steps: StepInsert[], approvals: Array<PendingApproval | null>, patch: Partial<AgentRun>, appended: ChatMessage[]): Promise<void> {
  if (!approvals.some(Boolean)) {
    await deps.db.execute(turnStatement(runId, steps, patch, appended))
    return
  }
  const requestedAt = clock(deps)
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.execute<{ next: number }>(sql`select coalesce(max(seq), 0) + 1 as next from agent_run_steps where run_id = ${runId}::uuid`)
    const next = Number(row!.next)
    const rows = await tx.insert(agentRunSteps).values(steps.map((step, index) => ({ ...step, runId, seq: next + index }))).returning({ id: agentRunSteps.id, seq: agentRunSteps.seq })
    const idOfSeq = new Map(rows.map(inserted => [inserted.seq, inserted.id]))
    const asked = approvals.flatMap((approval, index) => (approval
      ? [{ ...approval, runId, stepId: idOfSeq.get(next + index + 1)!, requestedAt, expiresAt: new Date(requestedAt.getTime() + APPROVAL_TTL_MS) }]
      : []))
    await tx.insert(agentApprovals).values(asked)
    await tx.update(agentRuns).set({ ...patch, updatedAt: new Date() }).where(eq(agentRuns.id, runId))
  })
}

/** An ordinary turn as ONE statement (one round trip, atomic): its steps, the run's counters, an asynchronous commit. */
function turnStatement(runId: string, steps: StepInsert[], patch: Partial<AgentRun>, appended: ChatMessage[]) {
  const rows = JSON.stringify(steps.map((step, index) => ({
    kind: step.kind, thought: step.thought ?? null, tool: step.tool ?? null, tool_call_id: step.toolCallId ?? null, tool_class: step.toolClass ?? null,
    input: step.input ?? null, output: step.output ?? null, status: step.status, error: step.error ?? null, sources: step.sources ?? [], skills: step.skills ?? [],
    write: step.write ?? null, call_id: step.callId ?? null, provider: step.provider ?? null, model: step.model ?? null,
    tokens_in: step.tokensIn ?? 0, tokens_out: step.tokensOut ?? 0, duration_ms: step.durationMs ?? 0, position: index,
  })))
  return sql`
    with async_commit as (select set_config('synchronous_commit', 'off', true) as value),
    base as (select coalesce(max(seq), 0) as seq from agent_run_steps where run_id = ${runId}::uuid),
    added as (
      insert into agent_run_steps (run_id, seq, kind, thought, tool, tool_call_id, tool_class, input, output, status, error, sources, skills, write, call_id, provider, model, tokens_in, tokens_out, duration_ms)
      select ${runId}::uuid, base.seq + 1 + r.position, r.kind, r.thought, r.tool, r.tool_call_id, r.tool_class, r.input, r.output, r.status, r.error, r.sources, r.skills, r.write, r.call_id, r.provider, r.model, r.tokens_in, r.tokens_out, r.duration_ms
      from base, jsonb_to_recordset(${rows}::jsonb) as r(kind text, thought text, tool text, tool_call_id text, tool_class text, input jsonb, output text, status text, error text, sources jsonb, skills jsonb, write jsonb, call_id uuid, provider text, model text, tokens_in int, tokens_out int, duration_ms int, position int)
      returning id),
    counted as (
      update agent_runs set iterations = ${patch.iterations!}, tokens_in = ${patch.tokensIn!}, tokens_out = ${patch.tokensOut!}, provider = ${patch.provider ?? null}, model = ${patch.model ?? null},
        conversation = conversation || ${JSON.stringify(appended)}::jsonb, updated_at = now()
      where id = ${runId}::uuid returning id)
    select (select value from async_commit) as commit_mode, (select count(*) from added) as steps, (select count(*) from counted) as runs`
}

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>

const toolMessage = (call: ToolCall, content: string, isError = false): ToolMessage =>
  ({ role: 'tool', toolCallId: call.id, name: call.name, content: truncate(content, MODEL_OUTPUT_CHARS), ...(isError ? { isError: true } : {}) })

/** One tool call: policy, input, guard, then an approval to ask for or the tool's outcome (nothing written yet). */
async function handleCall(deps: EngineDeps, run: AgentRun, context: RunContext, call: ToolCall): Promise<HandledCall> {
  const tool = deps.registry.get(call.name)
  const base = { kind: 'tool' as const, tool: call.name.slice(0, 64), toolCallId: call.id.slice(0, 200), toolClass: tool && !tool.unclassified ? tool.class : null, input: call.error ? { raw: call.rawArguments.slice(0, 2000) } : call.input }
  const refuse = (status: 'error' | 'denied', error: string): HandledCall =>
    ({ step: { ...base, status, error }, message: toolMessage(call, `${status === 'denied' ? 'Refused' : 'Error'}: ${error}`, true) })
  if (call.error) return refuse('error', call.error)
  const standing = tool && (tool.class === 'EXTERNAL_WRITE' || (tool.thirdParty && tool.class === 'WRITE')) ? await hasStandingApproval(deps.db, context.agent.codename, tool.name) : false
  const decision = checkPolicy({ name: call.name, tool, regime: context.regime, role: context.actingUser.role, allowlist: context.allowlist, standing, skillTools: context.skillTools ?? null })
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
async function runTool(deps: EngineDeps, tool: ToolDefinition, call: ToolCall, input: unknown, ctx: ToolRunContext): Promise<{ patch: StepOutcome, message: ToolMessage, stored?: ToolMessage }> {
  const started = Date.now()
  try {
    const outcome = await tool.run(input, ctx)
    const text = typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output)
    return {
      patch: { status: 'ok', output: truncate(outcome.unstored ?? text), sources: outcome.sources ?? [], write: (outcome.write ?? null) as Record<string, unknown> | null, durationMs: Date.now() - started },
      message: toolMessage(call, text),
      ...(outcome.unstored !== undefined ? { stored: toolMessage(call, outcome.unstored) } : {}),
    }
  }
  catch (error) {
    const code = error instanceof ToolError ? error.code : 'tool_failed'
    const message = `${code}: ${(error as Error).message}`.slice(0, 2000)
    deps.log?.(`[agents] run ${ctx.runId}: ${tool.name} failed (${message})`)
    return { patch: { status: 'error', error: message, durationMs: Date.now() - started }, message: toolMessage(call, `Error: ${message}`, true) }
  }
}

/** Runs an approved call with its stored payload and records the outcome on its step. */
export async function executeTool(deps: EngineDeps, tool: ToolDefinition, call: ToolCall, input: unknown, step: AgentRunStep, ctx: ToolRunContext): Promise<ToolMessage> {
  const { patch, message, stored } = await runTool(deps, tool, call, input, ctx)
  await updateStep(deps.db, step.id, patch)
  return stored ?? message
}
