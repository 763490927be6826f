import { describe, expect, it } from 'vitest'
import { routingWarnings } from '../../core/routing-warnings'

const providers = [
  { provider: 'mistral', configured: true, keyEnv: 'MISTRAL_API_KEY' },
  { provider: 'anthropic', configured: false, keyEnv: 'ANTHROPIC_API_KEY' },
  { provider: 'offline', configured: true, keyEnv: null },
]
const prices = [
  { provider: 'mistral', model: 'mistral-small-latest' },
  { provider: 'anthropic', model: 'claude-haiku-4-5' },
  { provider: 'offline', model: '*' },
]

describe('the routing editor\'s warnings', () => {
  it('says nothing for a configured provider and a catalogued model, or for inheritance', () => {
    expect(routingWarnings({ provider: 'mistral', model: 'mistral-small-latest' }, providers, prices)).toEqual([])
    expect(routingWarnings({ provider: null, model: null }, providers, prices)).toEqual([])
    expect(routingWarnings({ provider: 'mistral', model: '  ' }, providers, prices)).toEqual([])
  })

  it('warns about an unconfigured provider, naming the variable to set', () => {
    expect(routingWarnings({ provider: 'anthropic', model: null }, providers, prices)).toEqual([
      'anthropic is not configured (set ANTHROPIC_API_KEY): calls routed here fail over to the next provider.',
    ])
  })

  it('warns about a model the price catalogue does not know, for that provider', () => {
    const [warning] = routingWarnings({ provider: 'mistral', model: 'mistral-smal-latest' }, providers, prices)
    expect(warning).toContain('"mistral-smal-latest" is not in the price catalogue for mistral')
    // Known under another provider is still unknown here.
    expect(routingWarnings({ provider: 'mistral', model: 'claude-haiku-4-5' }, providers, prices)).toHaveLength(1)
    // With the provider inherited, any provider's catalogue will do.
    expect(routingWarnings({ provider: null, model: 'claude-haiku-4-5' }, providers, prices)).toEqual([])
    expect(routingWarnings({ provider: 'offline', model: 'anything' }, providers, prices)[0]).toContain('\'*\' price')
  })
})
