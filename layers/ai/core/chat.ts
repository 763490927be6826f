// Chat with failover, shared by generateContent and complete:
//   for each provider in order: not configured → skip silently; cooling down → skip;
//   otherwise attempt (with retries); success → answer; failure → log the failover, next.
// The first provider gets the requested model, every fallback its own default model.
// With no provider configured at all, the offline provider answers (labelled), unless
// AI_OFFLINE_FALLBACK=0; when configured providers all fail: "All AI providers are unavailable".
import type { ProviderId, Via } from './catalog'
import type { CallMeta, FacadeContext } from './context'
import { logOnce } from './context'
import { AiAbortedError, AiUnavailableError, ProviderError, type FailedProvider } from './errors'
import { asProviderError, runWithRetries } from './attempts'
import type { ChatRequest, ToolCall } from './clients/types'

export interface ChatPlan {
  order: ProviderId[]
  /** The model for the first provider (the requested, tenant or routed one). */
  firstModel?: string
  /** Realignment targets for every other provider. */
  defaults: Partial<Record<ProviderId, string>>
  /** false: never answer from the offline provider in place of the plan (a pinned run). */
  offlineFallback?: boolean
  /** Exact provider/model pairs to try in order, instead of order/firstModel/defaults (an allowed list). */
  candidates?: Array<{ provider: ProviderId, model: string }>
}

export interface ChatOutcome {
  content: string
  data?: unknown
  provider: ProviderId
  via: Via
  model: string
  tokensIn: number
  tokensOut: number
  durationMs: number
  offline: boolean
  failoverChain: string[]
  /** The ledger's call id (every attempt's row carries it: the cost of the call is theirs). */
  callId: string
  /** Tool calls of the answer (tool calling only). */
  toolCalls: ToolCall[]
}

export type ChatParams = Omit<ChatRequest, 'model'>

/** The first JSON object of a model's text (code fences and stray prose tolerated). */
export function parseJsonAnswer(text: string): unknown {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '')
  try {
    return JSON.parse(trimmed)
  }
  catch {
    const start = trimmed.indexOf('{')
    const end = trimmed.lastIndexOf('}')
    if (start >= 0 && end > start) return JSON.parse(trimmed.slice(start, end + 1))
    throw new SyntaxError('no JSON object in the answer')
  }
}

async function attempt(
  ctx: FacadeContext,
  meta: CallMeta,
  provider: ProviderId,
  model: string,
  chain: string[],
  params: ChatParams,
): Promise<ChatOutcome> {
  const client = ctx.registry.client(provider)!
  const result = await runWithRetries(
    ctx,
    meta,
    { provider, via: client.via, modelRequested: model, chain: [...chain] },
    ctx.retry.completion,
    async () => {
      const answer = await client.chat!({ ...params, model })
      if (!params.json) return { ...answer, data: undefined as unknown }
      try {
        return { ...answer, data: parseJsonAnswer(answer.content) }
      }
      catch {
        throw new ProviderError({
          provider,
          code: 'invalid_json',
          retryable: false,
          requestSpecific: true,
          detail: 'the answer is not a JSON object',
          usage: answer,
        })
      }
    },
  )
  return {
    content: result.content,
    data: result.data,
    provider,
    via: client.via,
    model: result.model,
    tokensIn: result.tokensIn,
    tokensOut: result.tokensOut,
    durationMs: ctx.now() - meta.startedAt,
    offline: provider === 'offline',
    failoverChain: chain,
    callId: meta.callId,
    toolCalls: result.toolCalls ?? [],
  }
}

export async function chatWithFailover(ctx: FacadeContext, meta: CallMeta, plan: ChatPlan, params: ChatParams): Promise<ChatOutcome> {
  const chain: string[] = []
  const failures: FailedProvider[] = []
  let attempted = false
  const tries
    = plan.candidates
      ?? plan.order.map((provider, index) => ({ provider, model: (index === 0 && plan.firstModel) || plan.defaults[provider] }))
  for (const { provider, model } of tries) {
    const client = ctx.registry.client(provider)
    if (!client?.chat) {
      chain.push(`${provider}:not_configured`)
      continue
    }
    if (ctx.cooldown.isCooling(provider)) {
      chain.push(`${provider}:cooldown`)
      failures.push({ provider, code: 'cooldown', message: `${provider} is cooling down after repeated failures` })
      continue
    }
    if (!model) {
      chain.push(`${provider}:no_model`)
      failures.push({ provider, code: 'no_model', message: `${provider}: no model named (set it in the routing table or the environment)` })
      continue
    }
    attempted = true
    try {
      const outcome = await attempt(ctx, meta, provider, model, chain, params)
      ctx.cooldown.recordSuccess(provider)
      return outcome
    }
    catch (error) {
      if (error instanceof AiAbortedError) throw error
      const failure = asProviderError(provider, error)
      if (!failure.requestSpecific) ctx.cooldown.recordFailure(provider)
      const message = ctx.redact(failure.message)
      failures.push({ provider, code: failure.code, status: failure.status, message })
      chain.push(`${provider}:${failure.code}`)
      ctx.log(`[ai] ${meta.feature}: ${message} — failing over`)
    }
  }
  if (!attempted && failures.length === 0 && ctx.offlineFallback && plan.offlineFallback !== false && !tries.some(entry => entry.provider === 'offline')) {
    logOnce(ctx, 'offline-fallback', '[ai] no AI provider is configured: answering with the offline provider (labelled offline, no model)')
    return await attempt(ctx, meta, 'offline', plan.defaults.offline ?? 'offline-rules-v1', chain, params)
  }
  const summary = failures.length > 0 ? failures.map(f => `${f.provider}: ${f.code}`).join('; ') : 'no provider is configured'
  throw new AiUnavailableError(ctx.redact(`All AI providers are unavailable (${summary})`), failures)
}
