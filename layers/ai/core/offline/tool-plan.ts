// The offline provider with tools (P8): deterministic, no model. A scripted tool plan rides in
// the first user turn as a fenced block
//   ```offline-plan
//   [{ "call": "recall_memory", "input": { "query": "webhook" } },
//    { "calls": [{ "call": "read_vault_note", "input": { "path": "a.md" } }, { "call": "…", "input": {} }] },
//    { "answer": "Done." }]
//   ```
// and the n-th assistant turn plays step n. Without a plan (no model configured: a person
// asking in the chat): the question routed by keywords to the search tools it names (intent.ts),
// then an answer listing what they found as readable results, saying once that no model is
// configured (readable.ts) — labelled offline either way. A malformed plan is answered in
// words, never thrown.
import { readArguments } from '../clients/tool-wire'
import type { ChatMessage, ChatRequest, ChatResult, ToolCall } from '../clients/types'
import { routeQuestion } from './intent'
import { readableAnswer } from './readable'

interface PlannedCall { call: string, input?: unknown, arguments?: string }
type PlanStep = PlannedCall | { calls: PlannedCall[] } | { answer: string }

const PLAN_BLOCK = /```offline-plan\s*\n([\s\S]*?)```/

export function scriptedPlan(messages: ChatMessage[]): PlanStep[] | { error: string } | null {
  const first = messages.find(message => message.role === 'user')
  const match = first ? PLAN_BLOCK.exec(first.content) : null
  if (!match) return null
  try {
    const plan: unknown = JSON.parse(match[1]!)
    if (!Array.isArray(plan)) return { error: 'the offline plan is not a JSON array' }
    return plan as PlanStep[]
  }
  catch (error) {
    return { error: `the offline plan is not JSON (${(error as Error).message})` }
  }
}

function toCall(planned: PlannedCall, turn: number, index: number): ToolCall {
  // `arguments` (raw text) lets a plan send malformed arguments on purpose.
  const read = planned.arguments !== undefined ? readArguments(planned.arguments) : readArguments(planned.input ?? {})
  return { id: `offline_${turn}_${index}`, name: String(planned.call), ...read }
}

function question(messages: ChatMessage[]): string {
  const first = messages.find(message => message.role === 'user')
  return (first?.content ?? '').replace(PLAN_BLOCK, '').trim()
}

export function offlineToolTurn(request: ChatRequest, messages: ChatMessage[]): Omit<ChatResult, 'model'> {
  const turn = messages.filter(message => message.role === 'assistant').length
  const plan = scriptedPlan(messages)
  const reply = (content: string, toolCalls?: ToolCall[]) => ({ content, tokensIn: 0, tokensOut: 0, ...(toolCalls ? { toolCalls } : {}) })
  if (plan && 'error' in plan) return reply(`[offline] ${plan.error}`)
  if (plan) {
    const step = plan[turn]
    if (!step) return reply(readableAnswer(messages, request.system))
    if ('answer' in step) return reply(`[offline] ${step.answer}`)
    const calls = 'calls' in step ? step.calls : [step]
    return reply('', calls.map((planned, index) => toCall(planned, turn, index)))
  }
  const routed = turn === 0 ? routeQuestion(question(messages), request.tools ?? []) : []
  if (routed.length > 0) return reply('', routed.map((route, index) => toCall({ call: route.tool, input: route.input }, turn, index)))
  return reply(readableAnswer(messages, request.system))
}
