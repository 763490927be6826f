import { describe, expect, it } from 'vitest'
import { mergeRoute, type RoutingLayer } from '../../core/routing'

const row = (feature: string, fields: Partial<RoutingLayer>): RoutingLayer => ({
  feature, completeProvider: null, completeModel: null, embedProvider: null, embedModel: null, params: {}, ...fields,
})

describe('routing merge', () => {
  it('uses the canonical defaults when the table is empty or unreadable', () => {
    expect(mergeRoute('embed', 'memory_sync', { useCanonical: true })).toEqual({ provider: 'mistral', model: 'mistral-embed', params: { dimensions: 1024 }, source: 'canonical' })
    expect(mergeRoute('complete', 'anything', { useCanonical: true })).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' })
    expect(mergeRoute('complete', 'atlas_classify', { useCanonical: true })).toMatchObject({ provider: 'mistral', model: 'mistral-small-latest', params: { dimensions: 1024, timeoutMs: 30_000 } })
  })

  it('merges a feature row over the global row, column by column', () => {
    const global = row('default', { completeProvider: 'mistral', completeModel: 'mistral-large-latest', embedProvider: 'voyage', embedModel: 'voyage-3', params: { dimensions: 1024, maxTokens: 2000 } })
    const feature = row('summaries', { completeProvider: 'openai', params: { maxTokens: 500 } })
    const rows = { feature, global, useCanonical: false }
    // A provider change without a model takes the new provider's default, not the global model.
    expect(mergeRoute('complete', 'summaries', rows)).toEqual({ provider: 'openai', model: 'gpt-4o-mini', params: { dimensions: 1024, maxTokens: 500 }, source: 'feature' })
    expect(mergeRoute('embed', 'summaries', rows)).toMatchObject({ provider: 'voyage', model: 'voyage-3', source: 'global' })
  })

  it('applies a model-only override to the inherited provider', () => {
    const global = row('default', { completeProvider: 'anthropic', completeModel: 'claude-haiku-4-5' })
    const feature = row('deep', { completeModel: 'sonnet' })
    expect(mergeRoute('complete', 'deep', { feature, global, useCanonical: false })).toMatchObject({ provider: 'anthropic', model: 'sonnet' })
  })

  it('ignores an unknown or unsuitable provider name', () => {
    const global = row('default', { completeProvider: 'gemini', embedProvider: 'anthropic' })
    const rows = { global, useCanonical: false }
    expect(mergeRoute('complete', 'x', rows)).toMatchObject({ provider: 'anthropic', source: 'canonical' })
    expect(mergeRoute('embed', 'x', rows)).toMatchObject({ provider: 'mistral', source: 'canonical' })
  })

  it('a table with rows but none for the feature or global falls to the canonical global row only', () => {
    expect(mergeRoute('complete', 'atlas_classify', { useCanonical: false })).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' })
  })
})
