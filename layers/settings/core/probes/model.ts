// A model provider's test: one call of one token through the AI facade, pinned to the provider
// (no failover to another, no offline stand-in), counted in the ledger like any call under the
// feature `settings_connection_test`. Voyage only embeds: its test embeds one word.
import { AiUnavailableError, type FailedProvider } from '#layers/ai/core/errors'
import type { AiFacade } from '#layers/ai/core/facade'
import type { ModelConnection } from '../schemas'
import { formatSeconds } from './words'

export const TEST_FEATURE = 'settings_connection_test'

export interface ModelProbeInput {
  provider: ModelConnection
  model: string
  actor: string
  deadlineMs: number
  /** Where requests go (shown in a failure; never with credentials). */
  baseUrl: string | null
}

export async function probeModel(facade: Pick<AiFacade, 'chatWithTools' | 'embed'>, input: ModelProbeInput): Promise<string> {
  try {
    return await callOnce(facade, input)
  }
  catch (error) {
    if (error instanceof AiUnavailableError && error.failures.length > 0) throw new Error(error.failures.map(failure => inWords(failure, input)).join('; '), { cause: error })
    throw error
  }
}

/** A provider's failure as the settings page says it. */
function inWords(failure: FailedProvider, input: ModelProbeInput): string {
  const where = input.baseUrl ?? failure.provider
  if (failure.code === 'cooldown') return `${failure.provider} is cooling down after repeated failures: the hub does not call it for a few minutes (its failures are on the AI page); test again then`
  if (failure.code === 'network') return `${failure.provider} could not be reached at ${where} (connection refused, DNS or TLS)`
  if (failure.code === 'timeout') return `${failure.provider} timed out after ${formatSeconds(input.deadlineMs)} at ${where}`
  if (failure.status === 401 || failure.status === 403) return `${failure.provider} refused the key (HTTP ${failure.status}) at ${where}`
  if (failure.status === 404) return `${failure.provider} does not know the model ${input.model} or the address ${where} (HTTP 404)`
  return failure.message
}

async function callOnce(facade: Pick<AiFacade, 'chatWithTools' | 'embed'>, input: ModelProbeInput): Promise<string> {
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
