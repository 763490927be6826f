// Recognisable fake keys are planted in the environment; every provider rejects them and
// echoes them back in its error (as some real APIs do). None may reach a log line, a
// ledger row, an error, an API error body or a result.
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleet, type Fleet } from '../fakes/fleet'
import { harness, PLANTED_KEYS, plantedKeyFragments } from '../fakes/harness'
import { apiError } from '../../core/api-errors'

let fleet: Fleet
beforeAll(async () => {
  // The fakes expect other keys: every planted key is refused, and echoed in the refusal.
  fleet = await startFleet({ mistral: 'expected-m', anthropic: 'expected-a', openai: 'expected-o', voyage: 'expected-v' })
})
afterAll(async () => fleet.close())

function assertClean(label: string, text: string): void {
  for (const fragment of plantedKeyFragments()) {
    expect(text.includes(fragment), `${label} contains ${fragment}`).toBe(false)
  }
}

describe('no key anywhere', () => {
  it('the fakes really do echo the planted keys (the test would catch a leak)', async () => {
    const response = await fetch(`${fleet.openai.url}/v1/chat/completions`, { method: 'POST', headers: { 'authorization': `Bearer ${PLANTED_KEYS.OPENAI_API_KEY}`, 'content-type': 'application/json' }, body: '{}' })
    expect(await response.text()).toContain(PLANTED_KEYS.OPENAI_API_KEY)
  })

  it('in logs, ledger rows, errors, API error bodies, results and provider status', async () => {
    const env = fleet.env({ ...PLANTED_KEYS, OPENAI_COMPAT: 'yes' }, { OPENAI_COMPAT_API_KEY: 'compat-PLANTED-KEY-77aa', OPENAI_COMPAT_MODEL: 'llama3' })
    const { ai, logs, entries } = harness(env)
    const outputs: string[] = []
    const capture = async (promise: Promise<unknown>) => {
      try {
        outputs.push(JSON.stringify(await promise))
      }
      catch (error) {
        outputs.push((error as Error).message, JSON.stringify(error), inspect(error, { depth: 10 }), JSON.stringify(apiError(error)))
      }
    }
    await capture(ai.generateContent({ prompt: 'hello', feature: 'leak_test' }))
    await capture(ai.generateContent({ prompt: 'hello', feature: 'leak_test', provider: 'openai', tenant: 'acme' }))
    await capture(ai.complete({ feature: 'leak_test', prompt: 'hello', json: true }))
    await capture(ai.complete({ feature: 'leak_test', prompt: 'hello', provider: 'openai-compat' }))
    await capture(ai.embed({ feature: 'leak_test', texts: ['a'] }))
    await capture(ai.embed({ feature: 'leak_test', texts: ['a'], provider: 'voyage' }))
    await capture(ai.embed({ feature: 'leak_test', texts: ['a'], provider: 'openai' }))
    outputs.push(JSON.stringify(ai.providers()))

    // The calls did reach the providers with the planted keys, and were refused.
    expect(fleet.mistral.requests.length).toBeGreaterThan(0)
    expect(fleet.openai.requests[0]!.headers.authorization).toBe(`Bearer ${PLANTED_KEYS.OPENAI_API_KEY}`)
    expect(fleet.anthropic.requests[0]!.headers['x-api-key']).toBe(PLANTED_KEYS.ANTHROPIC_API_KEY)
    expect(outputs.some(text => text.includes('All AI providers are unavailable'))).toBe(true)
    expect(logs.length).toBeGreaterThan(0)
    expect(entries.length).toBeGreaterThan(5)

    // The echoed keys were there, and were redacted.
    expect(logs.join('\n')).toContain('[redacted]')
    assertClean('a log line', logs.join('\n'))
    assertClean('a ledger row', JSON.stringify(entries))
    assertClean('an output', outputs.join('\n'))
  })
})
