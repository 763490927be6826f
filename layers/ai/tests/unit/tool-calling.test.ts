// Tool calling through the facade against loopback fakes of the three wire shapes (Mistral,
// OpenAI — and compatible servers — and Anthropic): the tools as each API wants them, tool
// calls read back (parallel ones too), tool results sent in the dialect's own turn shape,
// malformed arguments returned as a call error (never a crash), failover before the first
// token only (a pinned turn never moves), and the offline provider's scripted plans.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness, rejection } from '../fakes/harness'
import { anthropicToolAnswer, openAiToolAnswer } from '../fakes/tool-answers'
import { AiUnavailableError } from '../../core/errors'
import type { ChatMessage, ToolSpec } from '../../core/clients/types'

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet({ mistral: KEYS.MISTRAL_API_KEY, anthropic: KEYS.ANTHROPIC_API_KEY, openai: KEYS.OPENAI_API_KEY })
})
afterAll(async () => fleet.close())
beforeEach(() => fleet.reset())

const tools: ToolSpec[] = [
  { name: 'recall_memory', description: 'Recall scars and notes', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  { name: 'read_vault_note', description: 'Read a note', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
]
const ask: ChatMessage[] = [{ role: 'user', content: 'What do we know about webhooks?' }]

describe.each([
  { flavour: 'mistral' as const, provider: 'mistral' as const, env: { MISTRAL_API_KEY: KEYS.MISTRAL_API_KEY } },
  { flavour: 'openai' as const, provider: 'openai' as const, env: { OPENAI_API_KEY: KEYS.OPENAI_API_KEY } },
  { flavour: 'compat' as const, provider: 'openai-compat' as const, env: { OPENAI_COMPAT: '1' } },
])('the OpenAI chat dialect ($flavour)', ({ flavour, provider, env }) => {
  const server = () => fleet[flavour]

  it('sends the tools as functions and reads parallel tool calls back', async () => {
    server().script(openAiToolAnswer([
      { id: 'call_a', name: 'recall_memory', arguments: '{"query":"webhook"}' },
      { id: 'call_b', name: 'read_vault_note', arguments: '{"path":"notes/webhooks.md"}' },
    ]))
    const { ai, entries } = harness(fleet.env(env, provider === 'openai-compat' ? { OPENAI_COMPAT_MODEL: 'llama3' } : {}))
    const turn = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, provider, model: 'm-1', system: 'Rules.' })
    const sent = server().requests[0]!.body
    expect(sent.tools).toEqual(tools.map(t => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })))
    expect(sent.messages).toEqual([{ role: 'system', content: 'Rules.' }, { role: 'user', content: 'What do we know about webhooks?' }])
    expect(turn.provider).toBe(provider)
    expect(turn.content).toBe('')
    expect(turn.toolCalls).toEqual([
      { id: 'call_a', name: 'recall_memory', input: { query: 'webhook' }, rawArguments: '{"query":"webhook"}' },
      { id: 'call_b', name: 'read_vault_note', input: { path: 'notes/webhooks.md' }, rawArguments: '{"path":"notes/webhooks.md"}' },
    ])
    expect(entries[0]!.callId).toBe(turn.callId)
  })

  it('sends tool results as role "tool" turns after the assistant\'s tool_calls', async () => {
    const { ai } = harness(fleet.env(env))
    const call = { id: 'call_a', name: 'recall_memory', input: { query: 'webhook' }, rawArguments: '{"query":"webhook"}' }
    const turn = await ai.chatWithTools({
      feature: 'agent_run', tools, provider, model: 'm-1',
      messages: [...ask, { role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: 'call_a', name: 'recall_memory', content: 'Scar: cap webhook retries' }],
    })
    expect(server().requests[0]!.body.messages).toEqual([
      { role: 'user', content: 'What do we know about webhooks?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'recall_memory', arguments: '{"query":"webhook"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', name: 'recall_memory', content: 'Scar: cap webhook retries' },
    ])
    expect(turn.toolCalls).toEqual([])
    expect(turn.content).toBe('echo: Scar: cap webhook retries')
  })

  it('returns malformed arguments as a call error, not a crash', async () => {
    server().script(openAiToolAnswer([{ id: 'call_x', name: 'recall_memory', arguments: '{"query": "webh' }, { id: 'call_y', name: 'recall_memory', arguments: '["not", "an object"]' }]))
    const { ai } = harness(fleet.env(env))
    const turn = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, provider, model: 'm-1' })
    expect(turn.toolCalls.map(c => [c.id, c.input, c.rawArguments])).toEqual([['call_x', {}, '{"query": "webh'], ['call_y', {}, '["not", "an object"]']])
    expect(turn.toolCalls[0]!.error).toMatch(/^malformed_arguments: /)
    expect(turn.toolCalls[1]!.error).toBe('malformed_arguments: the arguments are not a JSON object')
  })
})

describe('the Anthropic dialect', () => {
  it('sends tools with input_schema, reads tool_use blocks (parallel), sends tool_result blocks in one user turn', async () => {
    fleet.anthropic.script(anthropicToolAnswer([{ id: 'toolu_1', name: 'recall_memory', input: { query: 'webhook' } }, { id: 'toolu_2', name: 'read_vault_note', input: { path: 'a.md' } }], 'Let me look.'))
    const { ai } = harness(fleet.env({ ANTHROPIC_API_KEY: KEYS.ANTHROPIC_API_KEY }))
    const first = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, provider: 'anthropic', model: 'sonnet', system: 'Rules.' })
    const sent = fleet.anthropic.requests[0]!.body
    expect(sent.tools).toEqual(tools.map(t => ({ name: t.name, description: t.description, input_schema: t.inputSchema })))
    expect(sent.system).toBe('Rules.')
    expect(sent.messages).toEqual([{ role: 'user', content: 'What do we know about webhooks?' }])
    expect(first.content).toBe('Let me look.')
    expect(first.toolCalls.map(c => [c.id, c.name, c.input, c.error])).toEqual([['toolu_1', 'recall_memory', { query: 'webhook' }, undefined], ['toolu_2', 'read_vault_note', { path: 'a.md' }, undefined]])

    const second = await ai.chatWithTools({
      feature: 'agent_run', tools, pinned: { provider: 'anthropic', model: first.model },
      messages: [...ask, { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'toolu_1', name: 'recall_memory', content: 'Scar: cap retries' },
        { role: 'tool', toolCallId: 'toolu_2', name: 'read_vault_note', content: 'unknown_tool', isError: true }],
    })
    expect(fleet.anthropic.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'What do we know about webhooks?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_1', name: 'recall_memory', input: { query: 'webhook' } }, { type: 'tool_use', id: 'toolu_2', name: 'read_vault_note', input: { path: 'a.md' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Scar: cap retries' }, { type: 'tool_result', tool_use_id: 'toolu_2', content: 'unknown_tool', is_error: true }] },
    ])
    expect(second.toolCalls).toEqual([])
  })

  it('reads tool_use input that is not an object as a call error', async () => {
    fleet.anthropic.script(anthropicToolAnswer([{ id: 'toolu_3', name: 'recall_memory', input: 'webhook' }]))
    const { ai } = harness(fleet.env({ ANTHROPIC_API_KEY: KEYS.ANTHROPIC_API_KEY }))
    const turn = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, provider: 'anthropic' })
    expect(turn.toolCalls[0]).toMatchObject({ id: 'toolu_3', input: {}, error: expect.stringMatching(/^malformed_arguments/) })
  })
})

describe('failover before the first token only', () => {
  it('fails over on the first turn, then a pinned turn never moves to another provider', async () => {
    fleet.mistral.respond(() => ({ status: 401, body: { message: 'Unauthorized' } }))
    const { ai } = harness(fleet.env(KEYS))
    const first = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, provider: 'mistral' })
    expect(first.provider).toBe('anthropic')
    expect(first.failoverChain[0]).toMatch(/^mistral:/)
    fleet.anthropic.respond(() => ({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } } }))
    const before = fleet.openai.requests.length + fleet.mistral.requests.length
    const error = await rejection(ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, pinned: { provider: 'anthropic', model: first.model } }))
    expect(error).toBeInstanceOf(AiUnavailableError)
    expect(fleet.openai.requests.length + fleet.mistral.requests.length).toBe(before)
  })

  it('with an allowed list (candidates), fails over only inside it, each with its own model, never offline', async () => {
    fleet.mistral.respond(() => ({ status: 401, body: { message: 'Unauthorized' } }))
    const { ai } = harness(fleet.env(KEYS))
    const before = fleet.anthropic.requests.length
    const answer = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, candidates: [{ provider: 'mistral', model: 'mistral-small-latest' }, { provider: 'openai', model: 'gpt-4o' }] })
    expect(answer).toMatchObject({ provider: 'openai', model: expect.stringMatching(/^gpt-4o/) })
    expect(answer.failoverChain[0]).toMatch(/^mistral:/)
    expect(fleet.anthropic.requests.length).toBe(before)
    fleet.openai.respond(() => ({ status: 401, body: { error: { message: 'Unauthorized' } } }))
    await expect(ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, candidates: [{ provider: 'mistral', model: 'mistral-small-latest' }, { provider: 'openai', model: 'gpt-4o' }] })).rejects.toBeInstanceOf(AiUnavailableError)
    expect(fleet.anthropic.requests.length).toBe(before)
    // No configured provider in the list: no offline stand-in either.
    await expect(harness({}).ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, candidates: [{ provider: 'mistral', model: 'mistral-small-latest' }] })).rejects.toBeInstanceOf(AiUnavailableError)
  })

  it('a pinned provider that is not configured is never replaced by the offline provider', async () => {
    const { ai } = harness({})
    await expect(ai.chatWithTools({ feature: 'agent_run', messages: ask, tools, pinned: { provider: 'mistral', model: 'mistral-large-latest' } })).rejects.toBeInstanceOf(AiUnavailableError)
  })
})

describe('the offline provider with tools', () => {
  const plan = (steps: unknown[]) => `Do it.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

  it('plays a scripted plan turn by turn: a call, parallel calls, malformed arguments, an answer', async () => {
    const { ai } = harness({ AI_OFFLINE: '1' })
    const content = plan([
      { call: 'recall_memory', input: { query: 'webhook' } },
      { calls: [{ call: 'read_vault_note', input: { path: 'a.md' } }, { call: 'read_vault_note', arguments: '{oops' }] },
      { answer: 'All read.' },
    ])
    const messages: ChatMessage[] = [{ role: 'user', content }]
    const one = await ai.chatWithTools({ feature: 'agent_run', messages, tools })
    expect(one).toMatchObject({ provider: 'offline', offline: true, tokensIn: 0 })
    expect(one.toolCalls).toEqual([{ id: 'offline_0_0', name: 'recall_memory', input: { query: 'webhook' }, rawArguments: '{"query":"webhook"}' }])
    messages.push({ role: 'assistant', content: '', toolCalls: one.toolCalls }, { role: 'tool', toolCallId: 'offline_0_0', name: 'recall_memory', content: 'hits' })
    const two = await ai.chatWithTools({ feature: 'agent_run', messages, tools })
    expect(two.toolCalls.map(c => c.name)).toEqual(['read_vault_note', 'read_vault_note'])
    expect(two.toolCalls[1]!.error).toMatch(/^malformed_arguments/)
    messages.push({ role: 'assistant', content: '', toolCalls: two.toolCalls })
    const three = await ai.chatWithTools({ feature: 'agent_run', messages, tools })
    expect(three.toolCalls).toEqual([])
    expect(three.content).toBe('[offline] All read.')
  })

  it('without a plan: recalls the question, then answers from the tool results', async () => {
    const { ai } = harness({ AI_OFFLINE: '1' })
    const one = await ai.chatWithTools({ feature: 'agent_run', messages: ask, tools })
    expect(one.toolCalls).toMatchObject([{ name: 'recall_memory', input: { query: 'What do we know about webhooks?' } }])
    const two = await ai.chatWithTools({ feature: 'agent_run', tools, messages: [...ask, { role: 'assistant', content: '', toolCalls: one.toolCalls }, { role: 'tool', toolCallId: one.toolCalls[0]!.id, name: 'recall_memory', content: 'Cap webhook retries' }] })
    expect(two.content).toContain('Cap webhook retries')
    expect(two.content.startsWith('[offline]')).toBe(true)
  })

  it('answers a plan that is not JSON in words', async () => {
    const { ai } = harness({ AI_OFFLINE: '1' })
    const turn = await ai.chatWithTools({ feature: 'agent_run', messages: [{ role: 'user', content: '```offline-plan\n[nope\n```' }], tools })
    expect(turn.toolCalls).toEqual([])
    expect(turn.content).toMatch(/offline plan is not JSON/)
  })
})
