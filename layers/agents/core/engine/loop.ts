// The ReAct loop (issue 19, Deliver 2): model turn → tool calls, each checked by the policy
// before it runs → results back to the model → … until an answer, a budget, an error or an
// approval pauses the run. Every turn and every call is a step row; the conversation is kept
// on the run so a paused run resumes exactly where it stopped.
import type { ChatMessage } from '#layers/ai/core/clients/types'
import type { ToolChatResult } from '#layers/ai/core/tool-chat'
import type { RunContext, RunContextRequest } from './context'
import { clock, type EngineDeps } from './engine-deps'
import { EngineError } from './errors'
import { runFailureReason } from './failure-words'
import { modelAsk } from './model-ask'
import { systemPrompt, type PromptLayer } from './prompt'
import { createRun } from './run-create'
import { nameSkills } from './skills'
import { appendStep, getRun, ledgerCost, updateRun, type AgentRun, type StepInsert } from './store'
import { handleCall, type HandledCall } from './tool-call'
import { recordTurn } from './turn-record'
import { ENGINE_FEATURE, type RunStatus } from './vocabulary'

export type { EngineDeps } from './engine-deps'
export { createRun, parseRunContext } from './run-create'

/** Starts a run and drives it until it ends or waits for an approval. */
export async function startRun(deps: EngineDeps, request: RunContextRequest): Promise<AgentRun> {
  const run = await createRun(deps, request)
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
  // What the run row keeps: the conversation, except the outputs a tool asked not to store (an image's OCR text).
  const kept = [...messages]
  const system = systemPrompt(run.promptLayers as PromptLayer[])
  const allowed = context.regime === 'allowlist' ? context.allowlist : undefined
  const skillTools = context.skillTools ?? null
  // A skill narrows the tools, never widens them: the intersection with the regime's list.
  const tools = deps.registry.specs(
    skillTools ? (allowed ?? deps.registry.list().map(t => t.name)).filter(name => skillTools.includes(name)) : allowed,
  )
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
      kind: 'model',
      status: 'ok',
      thought: turn.content || null,
      callId: turn.callId,
      provider: turn.provider,
      model: turn.model,
      tokensIn: turn.tokensIn,
      tokensOut: turn.tokensOut,
      durationMs: turn.durationMs,
      // The skills the model worked with on this turn (forced ones are in its prompt): the run names them.
      skills: context.forcedSkills.map(skill => skill.name),
      input:
        turn.toolCalls.length > 0
          ? turn.toolCalls.map(call => ({ id: call.id, name: call.name, arguments: call.rawArguments.slice(0, 2000) }))
          : null,
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
