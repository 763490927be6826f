// Embedders as they really are: no pause between requests to an endpoint on loopback, the
// seed's 1.3 s pause kept for a remote one; the input type (query or document) passed to
// the providers that take it. Fake providers over HTTP; waits recorded by a fake clock.
import { networkInterfaces } from 'node:os'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { isLoopbackUrl } from '../../core/env'
import { startFleet, KEYS, type Fleet } from '../fakes/fleet'
import { harness } from '../fakes/harness'
import { openAiStyle } from '../fakes/providers'
import { startFakeServer, type FakeServer } from '../fakes/server'

/** This machine's first address that is not loopback: a provider there is "remote" to the facade. */
const outside = Object.values(networkInterfaces()).flat().find(item => item && !item.internal && item.family === 'IPv4')?.address

let fleet: Fleet
let remote: FakeServer | undefined
beforeAll(async () => {
  fleet = await startFleet({ mistral: KEYS.MISTRAL_API_KEY, voyage: KEYS.VOYAGE_API_KEY })
  if (outside) remote = await startFakeServer(openAiStyle({ key: KEYS.MISTRAL_API_KEY, flavour: 'mistral' }), outside)
})
afterAll(async () => {
  await fleet.close()
  await remote?.close()
})
beforeEach(() => fleet.reset())

const texts = (n: number) => Array.from({ length: n }, (_, i) => `document ${i}`)

describe('the pause between embedding requests', () => {
  it('tells loopback addresses from the others', () => {
    for (const url of ['http://127.0.0.1:11434/v1', 'http://127.8.9.10', 'http://localhost:8080', 'http://embed.localhost', 'http://[::1]:9000/v1']) expect(isLoopbackUrl(url), url).toBe(true)
    for (const url of ['https://api.mistral.ai/v1', 'http://192.0.2.2:8080', 'http://10.0.0.5', 'http://127.0.0.1.example.com', 'not a url', undefined]) expect(isLoopbackUrl(url), String(url)).toBe(false)
  })

  it('a loopback embedder is called without pauses: 3 batches, 3 requests, no wait', async () => {
    const { ai, sleeps } = harness(fleet.env({ MISTRAL_API_KEY: KEYS.MISTRAL_API_KEY }))
    for (let call = 0; call < 3; call++) await ai.embed({ feature: 'memory_sync', texts: texts(120) })
    expect(fleet.mistral.requests).toHaveLength(9)
    expect(sleeps).toEqual([])
  })

  it.runIf(outside)('a remote one keeps the 1.3 s pause between requests', async () => {
    const { ai, sleeps } = harness({ MISTRAL_API_KEY: KEYS.MISTRAL_API_KEY, MISTRAL_BASE_URL: `${remote!.url}/v1` })
    const result = await ai.embed({ feature: 'memory_sync', texts: texts(120) })
    expect(result).toMatchObject({ provider: 'mistral', vectors: expect.any(Array) })
    expect(remote!.requests).toHaveLength(3)
    expect(sleeps).toEqual([1300, 1300])
    // The next call to the same provider waits too.
    await ai.embed({ feature: 'memory_recall', texts: ['next call'], inputType: 'query' })
    expect(sleeps).toEqual([1300, 1300, 1300])
  })
})

describe('the input type', () => {
  it('goes to Voyage as input_type', async () => {
    const { ai } = harness(fleet.env({ VOYAGE_API_KEY: KEYS.VOYAGE_API_KEY }), { embedThrottleMs: 0 })
    await ai.embed({ feature: 'f', provider: 'voyage', texts: ['a question'], inputType: 'query' })
    await ai.embed({ feature: 'f', provider: 'voyage', texts: ['a note'], inputType: 'document' })
    expect(fleet.voyage.requests.map(request => request.body.input_type)).toEqual(['query', 'document'])
  })

  it('prefixes the texts for the OpenAI-compatible endpoint, as configured, and nothing when unset', async () => {
    const env = fleet.env({ OPENAI_COMPAT: '1' }, { OPENAI_COMPAT_EMBED_MODEL: 'e5-large-v2', OPENAI_COMPAT_EMBED_QUERY_PREFIX: 'query: ', OPENAI_COMPAT_EMBED_DOCUMENT_PREFIX: 'passage: ' })
    const { ai } = harness(env)
    await ai.embed({ feature: 'f', provider: 'openai-compat', texts: ['où est la clé ?'], inputType: 'query' })
    await ai.embed({ feature: 'f', provider: 'openai-compat', texts: ['La clé est dans le coffre.', 'Deux'], inputType: 'document' })
    await ai.embed({ feature: 'f', provider: 'openai-compat', texts: ['sans type'] })
    const plain = harness(fleet.env({ OPENAI_COMPAT: '1' }, { OPENAI_COMPAT_EMBED_MODEL: 'e5-large-v2' }))
    await plain.ai.embed({ feature: 'f', provider: 'openai-compat', texts: ['brut'], inputType: 'query' })
    expect(fleet.compat.requests.map(request => request.body.input)).toEqual([['query: où est la clé ?'], ['passage: La clé est dans le coffre.', 'passage: Deux'], ['sans type'], ['brut']])
  })
})
