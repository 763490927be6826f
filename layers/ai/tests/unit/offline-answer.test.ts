// The offline provider when no model is configured (issue 36, Deliver 6): a question routes by
// French and English keywords to the search tools it names (only those the run is offered), and
// the answer lists what they found as a person reads it — titles, dates, senders, links — never
// JSON nor "tool: []"; an empty search says where and for what; the notice that no model is
// configured is said once per conversation.
import { describe, expect, it } from 'vitest'
import type { ChatMessage, ToolSpec } from '../../core/clients/types'
import { routeQuestion } from '../../core/offline/intent'
import { NO_MODEL_NOTICE, readableAnswer } from '../../core/offline/readable'
import { offlineToolTurn } from '../../core/offline/tool-plan'

const spec = (name: string): ToolSpec => ({ name, description: name, inputSchema: { type: 'object' } })
const ALL = ['recall_memory', 'search_worksites', 'search_atlas_messages', 'read_vault_note'].map(spec)
const route = (question: string, offered = ALL) => routeQuestion(question, offered).map(call => [call.tool, call.input.query])

describe('routing a question offline', () => {
  it('sends the inbox, worksites and memory questions to their tools, in English and French', () => {
    expect(route('What is new in my inbox?')).toEqual([['search_atlas_messages', '']])
    expect(route('Any mails from Acme about the invoice?')).toEqual([['search_atlas_messages', 'acme invoice']])
    expect(route('Quels courriels d\'Acme sur la facture ?')).toEqual([['search_atlas_messages', 'acme facture']])
    expect(route('Où en est la tâche de la maquette ?')).toEqual([['search_worksites', 'maquette']])
    expect(route('Which chantiers are about the redesign project?')).toEqual([['search_worksites', 'redesign']])
    expect(route('Te souviens-tu de la note sur les webhooks ?')).toEqual([['recall_memory', 'Te souviens-tu de la note sur les webhooks ?']])
    expect(route('Do you remember our hosting choice?')).toEqual([['recall_memory', 'Do you remember our hosting choice?']])
  })

  it('calls every tool a question names, the recall when it names none, and only offered tools', () => {
    expect(route('Tasks and messages about Acme')).toEqual([['search_atlas_messages', 'acme'], ['search_worksites', 'acme']])
    expect(route('How many times are webhook retries attempted?')).toEqual([['recall_memory', 'How many times are webhook retries attempted?']])
    expect(route('What is in my inbox?', [spec('recall_memory')])).toEqual([])
    expect(route('What do we know?', [spec('search_worksites')])).toEqual([])
  })
})

const MESSAGE_HIT = { id: 12, subject: 'Invoice for March', from: 'claire@client.example', receivedAt: '2026-12-01T09:30:00.000Z', intent: 'question', link: '/hub/atlas/12' }
const asked = (calls: Array<{ id: string, name: string, query: string }>): ChatMessage =>
  ({ role: 'assistant', content: '', toolCalls: calls.map(call => ({ id: call.id, name: call.name, input: { query: call.query }, rawArguments: JSON.stringify({ query: call.query }) })) })
const result = (id: string, name: string, content: unknown, isError = false): ChatMessage =>
  ({ role: 'tool', toolCallId: id, name, content: typeof content === 'string' ? content : JSON.stringify(content), ...(isError ? { isError: true } : {}) })

describe('the readable answer', () => {
  it('lists each hit with its title, date, sender and link, says the notice, shows no JSON', () => {
    const answer = readableAnswer([
      { role: 'user', content: 'Any mail about the invoice?' },
      asked([{ id: 'c1', name: 'search_atlas_messages', query: 'invoice' }]),
      result('c1', 'search_atlas_messages', [MESSAGE_HIT]),
    ], 'You are an agent.')
    expect(answer.split('\n')).toEqual([
      '[offline]',
      NO_MODEL_NOTICE,
      'In the inbox for «invoice», 1 found:',
      '- «Invoice for March» — 2026-12-01 09:30 UTC, from claire@client.example, question (/hub/atlas/12)',
    ])
    expect(NO_MODEL_NOTICE).toContain('/hub/ai')
  })

  it('says what found nothing and what could not look, never "tool: []"', () => {
    const answer = readableAnswer([
      asked([{ id: 'c1', name: 'search_atlas_messages', query: 'zebra' }, { id: 'c2', name: 'recall_memory', query: 'zebra' }, { id: 'c3', name: 'search_worksites', query: '' }]),
      result('c1', 'search_atlas_messages', []),
      result('c2', 'recall_memory', 'Error: tool_failed: the index is rebuilding', true),
      result('c3', 'search_worksites', []),
    ], undefined)
    expect(answer).toContain('Nothing found in the inbox for «zebra».')
    expect(answer).toContain('I could not look in memory: tool_failed: the index is rebuilding')
    expect(answer).toContain('Nothing found in the worksites.')
    expect(answer).not.toMatch(/\[\]|\{"|: \[/)
  })

  it('shows recall snippets and a single record, and clips long lists', () => {
    const hits = Array.from({ length: 10 }, (_, i) => ({ sourceType: 'note', sourceId: `n${i}`, title: `Note ${i}`, snippet: 'Webhook retries are capped at five attempts.', link: `/hub/memory/vault?note=n${i}` }))
    const answer = readableAnswer([asked([{ id: 'c1', name: 'recall_memory', query: 'retries' }]), result('c1', 'recall_memory', hits), result('c2', 'read_work_item', { entity: 'task', title: 'Cap retries', status: 'todo' })], undefined)
    expect(answer).toContain('- «Note 0» — note: Webhook retries are capped at five attempts. (/hub/memory/vault?note=n0)')
    expect(answer).toContain('…and 2 more.')
    expect(answer).toContain('From read work item:\n- «Cap retries» — task, todo')
  })

  it('says the notice once a conversation: not when an earlier answer in the prompt said it', () => {
    const messages = [asked([{ id: 'c1', name: 'search_atlas_messages', query: '' }]), result('c1', 'search_atlas_messages', [])]
    expect(readableAnswer(messages, `Earlier in this conversation:\nAgent: [offline]\n${NO_MODEL_NOTICE}`)).not.toContain(NO_MODEL_NOTICE)
    expect(readableAnswer(messages, undefined)).toContain(NO_MODEL_NOTICE)
  })
})

describe('the offline tool turn without a plan', () => {
  const request = { model: 'offline-rules-v1', prompt: '', maxTokens: 100, temperature: 0, json: false, timeoutMs: 1000, feature: 'agent_run', tools: ALL }

  it('calls the routed tools first, then answers from their results', () => {
    const question: ChatMessage = { role: 'user', content: 'Quoi de neuf dans la boîte de réception ?' }
    const first = offlineToolTurn(request, [question])
    expect(first.toolCalls).toMatchObject([{ name: 'search_atlas_messages', input: { query: '' } }])
    const second = offlineToolTurn(request, [question, { role: 'assistant', content: '', toolCalls: first.toolCalls }, result(first.toolCalls![0]!.id, 'search_atlas_messages', [])])
    expect(second.toolCalls).toBeUndefined()
    expect(second.content).toContain('Nothing found in the inbox.')
  })

  it('with none of its search tools offered, answers at once and says so', () => {
    const turn = offlineToolTurn({ ...request, tools: [spec('start_spawn')] }, [{ role: 'user', content: 'What is in my inbox?' }])
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.content).toContain('None of my search tools is available to this agent')
  })
})

describe('the search words', () => {
  it('are kept as written (accents too), compared without accents', () => {
    expect(route('Des courriels sur les zèbres ?')).toEqual([['search_atlas_messages', 'zèbres']])
    expect(route('Un e-mail à propos de la facture ?')).toEqual([['search_atlas_messages', 'facture']])
  })
})
