// Tool calling on the wire: the facade's neutral shapes (ToolSpec, ToolCall, ChatMessage)
// to and from the two wire dialects — Anthropic's content blocks (tool_use / tool_result)
// and the OpenAI chat dialect (tools[].function, tool_calls, role "tool") that Mistral,
// OpenAI and compatible servers share. Arguments that are not a JSON object do not throw:
// the call carries an `error` so the engine can hand it back to the model as a step error.
import { record } from './parse'
import type { ChatMessage, ChatRequest, ToolCall, ToolSpec } from './types'

/** Reads tool arguments (JSON text or an object); never throws. */
export function readArguments(raw: unknown): Pick<ToolCall, 'input' | 'rawArguments' | 'error'> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return { input: raw as Record<string, unknown>, rawArguments: JSON.stringify(raw) }
  const text = typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : JSON.stringify(raw)
  if (text.trim() === '') return { input: {}, rawArguments: text }
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { input: parsed as Record<string, unknown>, rawArguments: text }
    return { input: {}, rawArguments: text, error: 'malformed_arguments: the arguments are not a JSON object' }
  }
  catch (error) {
    return { input: {}, rawArguments: text, error: `malformed_arguments: ${(error as Error).message}` }
  }
}

/** The conversation of a request: its messages, else its prompt as the one user turn. */
export function conversation(request: ChatRequest): ChatMessage[] {
  return request.messages && request.messages.length > 0 ? request.messages : [{ role: 'user', content: request.prompt }]
}

// ---- Anthropic Messages API ----

export function anthropicTools(tools: ToolSpec[]): Array<Record<string, unknown>> {
  return tools.map(tool => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }))
}

/** Anthropic wants tool results as user turns, and consecutive results in ONE user turn. */
export function anthropicMessages(messages: ChatMessage[]): Array<Record<string, unknown>> {
  const out: Array<{ role: string, content: unknown }> = []
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content })
    else if (message.role === 'assistant') {
      const blocks: Array<Record<string, unknown>> = []
      if (message.content) blocks.push({ type: 'text', text: message.content })
      for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input })
      out.push({ role: 'assistant', content: blocks.length > 0 ? blocks : '' })
    }
    else {
      const block = { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }
      const last = out.at(-1)
      if (last?.role === 'user' && Array.isArray(last.content) && (last.content as Array<Record<string, unknown>>).every(b => b.type === 'tool_result')) (last.content as unknown[]).push(block)
      else out.push({ role: 'user', content: [block] })
    }
  }
  return out
}

export function anthropicToolCalls(content: unknown[]): ToolCall[] {
  return content.map(block => record(block)).filter(block => block?.type === 'tool_use').map((block, index) => ({
    id: typeof block!.id === 'string' ? block!.id : `toolu_${index}`,
    name: String(block!.name ?? ''),
    ...readArguments(block!.input),
  }))
}

// ---- OpenAI chat dialect (Mistral, OpenAI, compatible servers) ----

export function openAiTools(tools: ToolSpec[]): Array<Record<string, unknown>> {
  return tools.map(tool => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }))
}

export function openAiMessages(messages: ChatMessage[]): Array<Record<string, unknown>> {
  return messages.map((message) => {
    if (message.role === 'user') return { role: 'user', content: message.content }
    if (message.role === 'assistant') {
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls && message.toolCalls.length > 0
          ? { tool_calls: message.toolCalls.map(call => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.rawArguments } })) }
          : {}),
      }
    }
    return { role: 'tool', tool_call_id: message.toolCallId, name: message.name, content: message.content }
  })
}

export function openAiToolCalls(body: unknown): ToolCall[] {
  const choices = record(body)?.choices
  const message = record(record(Array.isArray(choices) ? choices[0] : undefined)?.message)
  const calls = message?.tool_calls
  if (!Array.isArray(calls)) return []
  return calls.map(call => record(call)).filter(Boolean).map((call, index) => {
    const fn = record(call!.function)
    return { id: typeof call!.id === 'string' ? call!.id : `call_${index}`, name: String(fn?.name ?? ''), ...readArguments(fn?.arguments) }
  })
}
