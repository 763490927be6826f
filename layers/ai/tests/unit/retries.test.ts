// Retries, waits, permanent errors, the cooldown and the embedding throttle, with a fake
// clock: waits are recorded, not slept.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness, rejection } from '../fakes/harness'
import { anthropicError, mistralError, openAiError } from '../fakes/providers'
import { AiUnavailableError, ProviderError } from '../../core/errors'
import { retryAfterMs, retryDelay, COMPLETION_RETRY } from '../../core/retry'

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

const call = { prompt: 'p', feature: 'retry_test' }
const onlyMistral = () => fleet.env({ MISTRAL_API_KEY: KEYS.MISTRAL_API_KEY })

describe('retry-after and backoff', () => {
  it('parses retry-after-ms, retry-after seconds and retry-after dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500.2' }))).toBe(1501)
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250)
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'Mon, 02 Nov 2026 09:00:05 GMT' }), Date.UTC(2026, 10, 2, 9, 0, 0))).toBe(5000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined()
    expect(retryAfterMs(new Headers())).toBeUndefined()
  })

  it('backs off exponentially with jitter, capped', () => {
    const error = new ProviderError({ provider: 'mistral', code: 'http_500', retryable: true })
    const policy = { ...COMPLETION_RETRY, attempts: 10 }
    expect([1, 2, 3, 4, 5].map(attempt => retryDelay(error, attempt, policy, () => 0))).toEqual([500, 1000, 2000, 4000, 4000])
    expect([1, 2, 3, 4, 5].map(attempt => retryDelay(error, attempt, policy, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000])
    expect(retryDelay(error, 3, COMPLETION_RETRY)).toBeNull()
  })
})

describe('retries', () => {
  it('makes 3 attempts for a completion, waiting with backoff, then fails', async () => {
    fleet.mistral.respond(() => mistralError(500, 'boom', 'internal_error'))
    const { ai, sleeps } = harness(onlyMistral())
    await expect(ai.generateContent(call)).rejects.toBeInstanceOf(AiUnavailableError)
    expect(fleet.mistral.requests).toHaveLength(3)
    expect(sleeps).toEqual([750, 1500])
  })

  it.each([
    ['retry-after-ms', { 'retry-after-ms': '1234' }, 1234],
    ['retry-after seconds', { 'retry-after': '7' }, 7000],
  ])('honours %s on a 429 and then succeeds', async (_name, headers, wait) => {
    fleet.mistral.script({ status: 429, headers, body: { message: 'Requests rate limit exceeded' } })
    const { ai, sleeps } = harness(onlyMistral())
    const result = await ai.generateContent(call)
    expect(result.provider).toBe('mistral')
    expect(fleet.mistral.requests).toHaveLength(2)
    expect(sleeps).toEqual([wait])
  })

  it.each([408, 409, 502, 503, 504])('retries HTTP %i', async (status) => {
    fleet.mistral.script({ status, body: { message: 'transient' } })
    const { ai } = harness(onlyMistral())
    await ai.generateContent(call)
    expect(fleet.mistral.requests).toHaveLength(2)
  })

  it('retries an Anthropic 529 overloaded', async () => {
    fleet.anthropic.script(anthropicError(529, 'overloaded_error', 'Overloaded'))
    const { ai } = harness(fleet.env({ ANTHROPIC_API_KEY: KEYS.ANTHROPIC_API_KEY }))
    const result = await ai.generateContent({ ...call, provider: 'anthropic' })
    expect(result.provider).toBe('anthropic')
    expect(fleet.anthropic.requests).toHaveLength(2)
  })

  it('retries a dropped connection', async () => {
    fleet.mistral.script({ destroy: true })
    const { ai } = harness(onlyMistral())
    await ai.generateContent(call)
    expect(fleet.mistral.requests).toHaveLength(2)
  })

  it('does not wait for a retry-after beyond a minute: it fails over instead', async () => {
    fleet.mistral.respond(() => ({ status: 429, headers: { 'retry-after': '3600' }, body: { message: 'slow down' } }))
    const { ai, sleeps } = harness(fleet.env(KEYS))
    const result = await ai.generateContent(call)
    expect(result.provider).toBe('anthropic')
    expect(fleet.mistral.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it.each([
    ['400', () => mistralError(400, 'bad request')],
    ['401', () => ({ status: 401, body: { message: 'Unauthorized' } })],
    ['403', () => ({ status: 403, body: { message: 'Forbidden' } })],
    ['404', () => ({ status: 404, body: { detail: 'Not Found' } })],
    ['413', () => ({ status: 413, body: { message: 'Payload too large' } })],
    ['422', () => mistralError(422, 'invalid model')],
  ])('never retries HTTP %s', async (_status, answer) => {
    fleet.mistral.respond(answer)
    const { ai, sleeps } = harness(onlyMistral())
    await expect(ai.generateContent(call)).rejects.toBeInstanceOf(AiUnavailableError)
    expect(fleet.mistral.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it.each([
    ['Anthropic billing_error', 'anthropic', () => anthropicError(400, 'billing_error', 'Your credit balance is too low to access the Anthropic API.'), 'billing_error'],
    ['an Anthropic spend-limit 429', 'anthropic', () => anthropicError(429, 'rate_limit_error', 'You have reached your specified workspace API usage limits.', { error_code: 'enforced_spend_limit_reached' }), 'spend_limit'],
    ['OpenAI insufficient_quota', 'openai', () => openAiError(429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota'), 'insufficient_quota'],
  ] as const)('never retries %s', async (_name, provider, answer, code) => {
    fleet[provider].respond(answer)
    const key = provider === 'anthropic' ? { ANTHROPIC_API_KEY: KEYS.ANTHROPIC_API_KEY } : { OPENAI_API_KEY: KEYS.OPENAI_API_KEY }
    const { ai, sleeps } = harness(fleet.env(key))
    const error = await rejection<AiUnavailableError>(ai.generateContent({ ...call, provider }))
    expect(error.failures[0]).toMatchObject({ provider, code })
    expect(fleet[provider].requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('makes 5 attempts for an embedding batch', async () => {
    fleet.mistral.respond(() => ({ status: 429, body: { message: 'Requests rate limit exceeded' } }))
    const { ai, sleeps } = harness(onlyMistral())
    await expect(ai.embed({ feature: 'memory_sync', texts: ['a'] })).rejects.toThrow('All AI providers are unavailable (mistral: rate_limited)')
    expect(fleet.mistral.requests).toHaveLength(5)
    // Backoff 750 ms, 1.5, 3 and 6 s (the fake provider is on loopback: no throttle on top,
    // embed-input.test.ts covers the remote case).
    expect(sleeps).toEqual([750, 1500, 3000, 6000])
  })
})

describe('cooldown', () => {
  it('sets a provider aside after 3 failed calls, so the next calls fail over at once, then tries it again', async () => {
    fleet.mistral.respond(() => mistralError(500, 'down', 'internal_error'))
    const { ai, clock } = harness(fleet.env(KEYS), {
      retry: { completion: { attempts: 1 } },
      cooldown: { threshold: 3, cooldownMs: 60_000 },
    })
    for (let i = 0; i < 3; i++) expect((await ai.generateContent(call)).provider).toBe('anthropic')
    expect(fleet.mistral.requests).toHaveLength(3)
    const cooled = await ai.generateContent(call)
    expect(cooled).toMatchObject({ provider: 'anthropic', failoverChain: ['mistral:cooldown'] })
    expect(fleet.mistral.requests).toHaveLength(3)
    expect(ai.providers().find(p => p.provider === 'mistral')).toMatchObject({ coolingDown: true, recentFailures: 3 })

    clock.t += 61_000
    fleet.mistral.respond(() => ({ body: { model: 'mistral-large-latest', choices: [{ message: { content: 'back' } }], usage: {} } }))
    const back = await ai.generateContent(call)
    expect(back).toMatchObject({ provider: 'mistral', content: 'back' })
    expect(ai.providers().find(p => p.provider === 'mistral')).toMatchObject({ coolingDown: false, recentFailures: 0 })
  })

  it('a cooled-down embedding provider fails at once', async () => {
    fleet.mistral.respond(() => mistralError(500, 'down', 'internal_error'))
    const { ai } = harness(onlyMistral(), { retry: { embedding: { attempts: 1 } }, embedThrottleMs: 0 })
    for (let i = 0; i < 3; i++) await expect(ai.embed({ feature: 'f', texts: ['x'] })).rejects.toThrow(/http_500/)
    await expect(ai.embed({ feature: 'f', texts: ['x'] })).rejects.toThrow('All AI providers are unavailable (mistral: cooldown)')
    expect(fleet.mistral.requests).toHaveLength(3)
  })

  it('bad input does not count towards the cooldown', async () => {
    fleet.mistral.respond(() => mistralError(422, 'invalid'))
    const { ai } = harness(onlyMistral())
    for (let i = 0; i < 4; i++) await expect(ai.generateContent(call)).rejects.toThrow(/http_422/)
    expect(fleet.mistral.requests).toHaveLength(4)
  })
})

describe('embeddings', () => {
  it('batches by 50 (the fake is on loopback: no pause between requests, embed-input.test.ts has the remote case)', async () => {
    const { ai, sleeps, entries } = harness(onlyMistral())
    const texts = Array.from({ length: 120 }, (_, i) => `text ${i}`)
    const result = await ai.embed({ feature: 'memory_sync', texts, inputType: 'document' })
    expect(fleet.mistral.requests.map(r => (r.body.input as string[]).length)).toEqual([50, 50, 20])
    expect(fleet.mistral.requests[0]!.body).toMatchObject({ model: 'mistral-embed' })
    expect(sleeps).toEqual([])
    expect(result).toMatchObject({ provider: 'mistral', model: 'mistral-embed', dimensions: 1024, tokensIn: 360 })
    expect(result.vectors).toHaveLength(120)
    expect(entries.map(e => e.kind)).toEqual(['embedding', 'embedding', 'embedding'])
    expect(new Set(entries.map(e => e.callId)).size).toBe(1)

    await ai.embed({ feature: 'memory_recall', texts: ['next call'], inputType: 'query' })
    expect(sleeps).toEqual([])
  })

  it('uses the first configured substitute when the routed provider has no key, else the offline embedder', async () => {
    const voyageOnly = harness(fleet.env({ VOYAGE_API_KEY: KEYS.VOYAGE_API_KEY }))
    const viaVoyage = await voyageOnly.ai.embed({ feature: 'memory_recall', texts: ['q'], inputType: 'query' })
    expect(viaVoyage).toMatchObject({ provider: 'voyage', model: 'voyage-3' })
    expect(fleet.voyage.requests[0]!.body).toMatchObject({ input_type: 'query' })
    expect(voyageOnly.logs[0]).toMatch(/routed embedding provider mistral is not configured; voyage \(voyage-3\) embeds instead/)

    const none = harness({})
    const offline = await none.ai.embed({ feature: 'memory_recall', texts: ['q'] })
    expect(offline).toMatchObject({ provider: 'offline', model: 'offline-hash-1024', offline: true, dimensions: 1024 })
    expect(none.sleeps).toEqual([])
  })

  it('never fails over to another provider\'s vector space on an error', async () => {
    fleet.mistral.respond(() => mistralError(401, 'Unauthorized'))
    const { ai } = harness(fleet.env(KEYS))
    await expect(ai.embed({ feature: 'f', texts: ['x'] })).rejects.toThrow(/mistral: http_401/)
    expect(fleet.openai.requests).toHaveLength(0)
    expect(fleet.voyage.requests).toHaveLength(0)
  })

  it('an explicit provider with no key is an error, not a substitution', async () => {
    const { ai } = harness(onlyMistral())
    await expect(ai.embed({ feature: 'f', texts: ['x'], provider: 'voyage' })).rejects.toThrow('voyage is not configured for embeddings')
  })
})

describe('embedding target', () => {
  it('tells where the next embedding goes without calling anything', async () => {
    expect(await harness(onlyMistral()).ai.embeddingTarget('memory_sync')).toEqual({ provider: 'mistral', model: 'mistral-embed', dimensions: 1024 })
    expect(await harness(fleet.env({ VOYAGE_API_KEY: KEYS.VOYAGE_API_KEY })).ai.embeddingTarget('memory_sync')).toEqual({ provider: 'voyage', model: 'voyage-3', dimensions: 1024 })
    expect(await harness({}).ai.embeddingTarget('memory_sync')).toEqual({ provider: 'offline', model: 'offline-hash-1024', dimensions: 1024 })
    expect(await harness({ AI_OFFLINE_FALLBACK: '0' }).ai.embeddingTarget('memory_sync')).toBeNull()
    expect(await harness(onlyMistral()).ai.embeddingTarget('memory_sync', 'voyage')).toBeNull()
    for (const server of fleet.all) expect(server.requests).toHaveLength(0)
  })
})
