// Tool-calling answers in each wire dialect, for scripting the loopback fakes: an OpenAI-style
// answer (Mistral, OpenAI, compatible servers) with tool_calls and null content, an Anthropic
// answer with tool_use blocks.
import type { FakeAnswer } from './server'

export function openAiToolAnswer(calls: Array<{ id: string, name: string, arguments: string }>, model = 'fake-model'): FakeAnswer {
  return {
    body: {
      id: 'cmpl-tools',
      object: 'chat.completion',
      model,
      choices: [{
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: calls.map(call => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) },
        finish_reason: 'tool_calls',
      }],
      usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
    },
  }
}

export function anthropicToolAnswer(calls: Array<{ id: string, name: string, input: unknown }>, text = ''): FakeAnswer {
  return {
    body: {
      id: 'msg_tools',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [...(text ? [{ type: 'text', text }] : []), ...calls.map(call => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input }))],
      stop_reason: 'tool_use',
      usage: { input_tokens: 40, output_tokens: 12 },
    },
  }
}
