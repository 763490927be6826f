import { describe, expect, it } from 'vitest'
import { createAiFacade } from '#layers/ai/core/facade'
import { facadeEmbedder } from '../../core/vectors/embedder'

const target = (env: Record<string, string>) => facadeEmbedder(createAiFacade({ env, log: () => {} }), { feature: 'memory_sync' }).target()

describe('the embedding target, known without a call', () => {
  it('offline when forced, or when nothing is configured and the fallback is allowed', async () => {
    expect(await target({ AI_OFFLINE: '1', MISTRAL_API_KEY: 'sk-test-123456' })).toEqual({ provider: 'offline', model: 'offline-hash-1024', dimensions: 1024 })
    expect(await target({})).toEqual({ provider: 'offline', model: 'offline-hash-1024', dimensions: 1024 })
    expect(await target({ AI_OFFLINE_FALLBACK: '0' })).toBeNull()
  })

  it('the canonical route (mistral-embed) when Mistral has a key; a configured substitute otherwise', async () => {
    expect(await target({ MISTRAL_API_KEY: 'sk-test-123456' })).toEqual({ provider: 'mistral', model: 'mistral-embed', dimensions: 1024 })
    expect(await target({ VOYAGE_API_KEY: 'pa-test-123456' })).toEqual({ provider: 'voyage', model: 'voyage-3', dimensions: 1024 })
    expect(await target({ OPENAI_API_KEY: 'sk-test-123456' })).toEqual({ provider: 'openai', model: 'text-embedding-3-small', dimensions: 1024 })
  })

  it('agrees with the model the facade then answers with', async () => {
    const ai = createAiFacade({ env: {}, log: () => {} })
    const chosen = await facadeEmbedder(ai, { feature: 'memory_sync' }).target()
    const result = await ai.embed({ feature: 'memory_sync', texts: ['bonjour'] })
    expect({ provider: result.provider, model: result.model, dimensions: result.dimensions }).toEqual(chosen)
  })
})
