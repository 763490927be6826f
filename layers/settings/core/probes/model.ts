// A model provider's test: one call of one token through the AI facade, pinned to the provider
// (no failover to another, no offline stand-in), counted in the ledger like any call under the
// feature `settings_connection_test`. Voyage only embeds: its test embeds one word.
import type { AiFacade } from '#layers/ai/core/facade'
import type { ModelConnection } from '../schemas'

export const TEST_FEATURE = 'settings_connection_test'

export async function probeModel(facade: Pick<AiFacade, 'chatWithTools' | 'embed'>, input: { provider: ModelConnection, model: string, actor: string, deadlineMs: number }): Promise<string> {
  const { provider, model, actor, deadlineMs } = input
  if (provider === 'voyage') {
    const result = await facade.embed({ feature: TEST_FEATURE, texts: ['ping'], provider, model, actor, timeoutMs: deadlineMs })
    if (result.provider !== provider) throw new Error(`${provider} did not answer: ${result.provider} did`)
    return `${result.model} embedded one word (${result.dimensions} dimensions) in ${result.durationMs} ms`
  }
  const result = await facade.chatWithTools({
    feature: TEST_FEATURE,
    messages: [{ role: 'user', content: 'Reply with the single word: ok' }],
    tools: [],
    pinned: { provider, model },
    maxTokens: 1,
    actor,
    timeoutMs: deadlineMs,
  })
  return `${result.model} answered in ${result.durationMs} ms (${result.tokensIn} tokens in, ${result.tokensOut} out)`
}
