// generateContent and complete: the sovereign failover order, every failover path (missing
// key, 500, timeout, all down), model realignment, and the offline answer when nothing is
// configured. No database: routing falls back to the canonical defaults.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness, rejection } from '../fakes/harness'
import { AiRequestError, AiUnavailableError } from '../../core/errors'
import type { ProcessRunner } from '../../core/clients/process-runner'

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet({
    mistral: KEYS.MISTRAL_API_KEY,
    anthropic: KEYS.ANTHROPIC_API_KEY,
    openai: KEYS.OPENAI_API_KEY,
    voyage: KEYS.VOYAGE_API_KEY,
  })
})
afterAll(async () => fleet.close())
beforeEach(() => fleet.reset())

const generate = { prompt: 'Draft a reply', feature: 'atlas_reply_draft' }

describe('generateContent', () => {
  it('defaults to mistral / mistral-large-latest with temperature 0.7 and 4096 tokens', async () => {
    const { ai, entries } = harness(fleet.env(KEYS))
    const result = await ai.generateContent({ ...generate, systemPrompt: 'Formal register.' })
    expect(result).toMatchObject({ content: 'echo: Draft a reply', provider: 'mistral', model: 'mistral-large-latest', tokensIn: 12, tokensOut: 7, offline: false, failoverChain: [] })
    expect(fleet.mistral.requests[0]!.body).toMatchObject({ model: 'mistral-large-latest', temperature: 0.7, max_tokens: 4096 })
    expect(fleet.mistral.requests[0]!.body).not.toHaveProperty('response_format')
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ kind: 'generation', provider: 'mistral', outcome: 'ok', feature: 'atlas_reply_draft', attempt: 1 })
  })

  it('puts a requested provider first, with the requested model (aliases resolved)', async () => {
    const { ai } = harness(fleet.env(KEYS))
    const result = await ai.generateContent({ ...generate, provider: 'anthropic', model: 'opus' })
    expect(result).toMatchObject({ provider: 'anthropic', model: 'claude-opus-4-6' })
    expect(fleet.mistral.requests).toHaveLength(0)
  })

  it('skips a provider with no key silently, realigning the model to the fallback\'s default', async () => {
    const { ai, logs, entries } = harness(fleet.env({ ANTHROPIC_API_KEY: KEYS.ANTHROPIC_API_KEY, OPENAI_API_KEY: KEYS.OPENAI_API_KEY }))
    const result = await ai.generateContent({ ...generate, model: 'mistral-small-latest' })
    expect(result).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6', failoverChain: ['mistral:not_configured'] })
    expect(fleet.anthropic.requests[0]!.body.model).toBe('claude-sonnet-4-6')
    expect(logs).toEqual([])
    expect(entries.map(e => e.provider)).toEqual(['anthropic'])
  })

  it('fails over on a 500 (after its retries), logs it, and realigns the model', async () => {
    fleet.mistral.respond(() => ({ status: 500, body: { object: 'error', message: 'Internal error', type: 'internal_error' } }))
    const { ai, logs, entries, sleeps } = harness(fleet.env(KEYS))
    const result = await ai.generateContent({ ...generate, model: 'mistral-small-latest' })
    expect(result).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6', failoverChain: ['mistral:http_500'] })
    expect(fleet.mistral.requests).toHaveLength(3)
    expect(sleeps).toHaveLength(2)
    expect(logs.some(line => /mistral: http_500 \(HTTP 500\).*failing over/.test(line))).toBe(true)
    expect(entries.map(e => [e.provider, e.outcome, e.attempt])).toEqual([
      ['mistral', 'failed', 1], ['mistral', 'failed', 2], ['mistral', 'failed', 3], ['anthropic', 'ok', 1],
    ])
    expect(entries[3]!.failoverChain).toEqual(['mistral:http_500'])
    expect(entries[0]).toMatchObject({ error: 'http_500', httpStatus: 500, model: 'mistral-small-latest', tokensIn: 0 })
  })

  it('fails over on a timeout', async () => {
    // Gaps a loaded machine cannot blur: the next provider answers well within the 2 s.
    fleet.mistral.respond(() => ({ delayMs: 20_000, body: {} }))
    const { ai } = harness(fleet.env(KEYS), { retry: { completion: { attempts: 1 } } })
    const result = await ai.generateContent({ ...generate, timeoutMs: 2_000 })
    expect(result).toMatchObject({ provider: 'anthropic', failoverChain: ['mistral:timeout'] })
  })

  it('goes all the way to openai, then says all providers are unavailable', async () => {
    fleet.mistral.respond(() => ({ status: 503, body: { message: 'down' } }))
    fleet.anthropic.respond(() => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }))
    const { ai } = harness(fleet.env(KEYS))
    const third = await ai.generateContent(generate)
    expect(third).toMatchObject({ provider: 'openai', model: 'gpt-4o-2024-08-06', failoverChain: ['mistral:http_503', 'anthropic:overloaded'] })
    expect(fleet.openai.requests[0]!.body.model).toBe('gpt-4o')

    fleet.openai.respond(() => ({ destroy: true }))
    const { ai: again } = harness(fleet.env(KEYS))
    const error = await rejection<AiUnavailableError>(again.generateContent(generate))
    expect(error).toBeInstanceOf(AiUnavailableError)
    expect(error.message).toBe('All AI providers are unavailable (mistral: http_503; anthropic: overloaded; openai: network)')
    expect(error.failures.map(f => f.provider)).toEqual(['mistral', 'anthropic', 'openai'])
  })

  it('answers offline, labelled, when no provider is configured at all', async () => {
    const { ai, logs, entries } = harness({})
    const result = await ai.generateContent(generate)
    expect(result).toMatchObject({ provider: 'offline', model: 'offline-rules-v1', offline: true, via: 'local', tokensIn: 0, tokensOut: 0 })
    expect(result.content).toMatch(/^\[offline\] No AI model answered/)
    expect(result.failoverChain).toEqual(['mistral:not_configured', 'anthropic:not_configured', 'openai:not_configured'])
    expect(logs).toEqual(['[ai] no AI provider is configured: answering with the offline provider (labelled offline, no model)'])
    expect(entries[0]).toMatchObject({ provider: 'offline', via: 'local', outcome: 'ok' })
  })

  it('refuses the offline answer when AI_OFFLINE_FALLBACK=0', async () => {
    const { ai } = harness({ AI_OFFLINE_FALLBACK: '0' })
    await expect(ai.generateContent(generate)).rejects.toThrow('All AI providers are unavailable (no provider is configured)')
  })

  it('AI_OFFLINE=1 makes no network call at all', async () => {
    const { ai } = harness(fleet.env(KEYS, { AI_OFFLINE: '1' }))
    const result = await ai.generateContent({ ...generate, provider: 'anthropic' })
    expect(result.provider).toBe('offline')
    for (const server of fleet.all) expect(server.requests).toHaveLength(0)
  })

  it('rejects bad input with a clear error and no call', async () => {
    const { ai } = harness(fleet.env(KEYS))
    await expect(ai.generateContent({ prompt: '', feature: 'x' })).rejects.toBeInstanceOf(AiRequestError)
    await expect(ai.generateContent({ prompt: 'p', feature: '' })).rejects.toThrow(/feature is required/)
    await expect(ai.generateContent({ prompt: 'p', feature: 'x', provider: 'voyage' as never })).rejects.toThrow(/provider/)
    expect(fleet.mistral.requests).toHaveLength(0)
  })
})

describe('complete', () => {
  it('routes atlas_classify to mistral-small-latest in JSON mode at temperature 0 (canonical defaults, no database)', async () => {
    fleet.mistral.respond(request => ({ body: { model: request.body.model, choices: [{ index: 0, message: { role: 'assistant', content: '{"intent":"run","confidence":0.9}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 9 } } }))
    const { ai } = harness(fleet.env(KEYS))
    const result = await ai.complete({ feature: 'atlas_classify', system: 'Classify.', prompt: 'email', json: true })
    expect(result).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest', data: { intent: 'run', confidence: 0.9 } })
    expect(fleet.mistral.requests[0]!.body).toMatchObject({ temperature: 0, response_format: { type: 'json_object' } })
  })

  it('routes other features to the global row: anthropic / claude-haiku-4-5', async () => {
    fleet.anthropic.respond(() => ({ body: { type: 'message', model: 'claude-haiku-4-5', content: [{ type: 'text', text: '```json\n{"ok":true}\n```' }], usage: { input_tokens: 5, output_tokens: 3 } } }))
    const { ai } = harness(fleet.env(KEYS))
    const result = await ai.complete({ feature: 'learning_scar_classify', prompt: 'p', json: true })
    expect(result).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5', data: { ok: true } })
  })

  it('fails over to the next provider when the answer is not JSON (the tokens still counted)', async () => {
    fleet.mistral.respond(request => ({ body: { model: request.body.model, choices: [{ message: { content: 'Sure! The intent is run.' } }], usage: { prompt_tokens: 40, completion_tokens: 6 } } }))
    fleet.anthropic.respond(() => ({ body: { type: 'message', model: 'claude-haiku-4-5', content: [{ type: 'text', text: '{"intent":"run"}' }], usage: { input_tokens: 5, output_tokens: 3 } } }))
    const { ai, entries } = harness(fleet.env(KEYS))
    const result = await ai.complete({ feature: 'atlas_classify', prompt: 'p', json: true })
    expect(result).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5', failoverChain: ['mistral:invalid_json'] })
    expect(fleet.mistral.requests).toHaveLength(1)
    expect(entries[0]).toMatchObject({ provider: 'mistral', outcome: 'failed', error: 'invalid_json', tokensIn: 40, tokensOut: 6 })
  })

  it('honours an explicit provider and model, and a per-call timeout', async () => {
    fleet.mistral.respond(() => ({ delayMs: 20_000, body: {} }))
    const { ai } = harness(fleet.env(KEYS), { retry: { completion: { attempts: 1 } } })
    const explicit = await ai.complete({ feature: 'f', prompt: 'p', provider: 'openai', model: 'gpt-4o-mini' })
    expect(explicit).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini-2024-08-06' })
    const timed = await ai.complete({ feature: 'atlas_classify', prompt: 'p', timeoutMs: 2_000 })
    expect(timed.failoverChain).toEqual(['mistral:timeout'])
  })

  it('gives classification 30 s, other completions and generation 120 s, unless the call says otherwise', async () => {
    const timeouts: number[] = []
    const runner: ProcessRunner = async (_command, _args, options) => {
      timeouts.push(options.timeoutMs)
      return { exitCode: 0, signal: null, timedOut: false, stderr: '', stdout: '{"type":"result","subtype":"success","is_error":false,"result":"{}","usage":{}}' }
    }
    const { ai } = harness({ AI_AGENT_CLI: '1' }, { runner })
    await ai.complete({ feature: 'atlas_classify', prompt: 'p', json: true })
    await ai.complete({ feature: 'memory_summary', prompt: 'p' })
    await ai.generateContent({ prompt: 'p', feature: 'atlas_reply_draft' })
    await ai.complete({ feature: 'atlas_classify', prompt: 'p', timeoutMs: 5_000 })
    expect(timeouts).toEqual([30_000, 120_000, 120_000, 5_000])
  })

  it('answers the Atlas classifier offline with its JSON shape, labelled', async () => {
    const { ai } = harness({})
    const result = await ai.complete({ feature: 'atlas_classify', prompt: 'Bonjour, pouvez-vous nous envoyer un devis pour la refonte ? Tarif ?', json: true })
    expect(result).toMatchObject({ provider: 'offline', offline: true, data: { intent: 'negociation', confidence: 0.6, offline: true } })
    expect((result.data as { reasoning: string }).reasoning).toMatch(/^offline rule-based classification, no model/)
  })
})
