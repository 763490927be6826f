// One provider, several attempts: each attempt writes its ledger row (success or
// failure); transient failures are retried after the wait retryDelay decides.
import type { ProviderId, Via } from './catalog'
import type { CallMeta, FacadeContext } from './context'
import { AiAbortedError, ProviderError } from './errors'
import { retryDelay, type RetryPolicy } from './retry'

export interface AttemptTarget {
  provider: ProviderId
  via: Via
  modelRequested: string
  /** Providers of this call before this one (provider or provider:reason). */
  chain: string[]
}

export interface AttemptUsage { model: string, tokensIn: number, tokensOut: number, costUsd?: number }

export function asProviderError(provider: ProviderId, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error
  return new ProviderError({ provider, code: 'internal_error', retryable: false, detail: error instanceof Error ? error.message : String(error) })
}

export async function runWithRetries<T extends AttemptUsage>(
  ctx: FacadeContext,
  meta: CallMeta,
  target: AttemptTarget,
  policy: RetryPolicy,
  operation: () => Promise<T>,
  beforeAttempt?: () => Promise<void>,
): Promise<T> {
  const row = (attempt: number) => ({
    callId: meta.callId,
    kind: meta.kind,
    provider: target.provider,
    via: target.via,
    modelRequested: ctx.redact(target.modelRequested),
    feature: meta.feature,
    tenant: meta.tenant,
    actor: meta.actor,
    agent: meta.agent ?? null,
    attempt,
    failoverChain: target.chain,
  })
  for (let attempt = 1; ; attempt++) {
    if (beforeAttempt) await beforeAttempt()
    const started = ctx.now()
    try {
      const result = await operation()
      ctx.ledger.record({
        ...row(attempt), at: new Date(started), outcome: 'ok', error: null, httpStatus: null,
        model: ctx.redact(result.model), tokensIn: result.tokensIn, tokensOut: result.tokensOut,
        reportedCostUsd: result.costUsd ?? null, durationMs: ctx.now() - started,
      })
      return result
    }
    catch (error) {
      const aborted = error instanceof AiAbortedError
      const failure = aborted ? new ProviderError({ provider: target.provider, code: 'aborted', retryable: false }) : asProviderError(target.provider, error)
      ctx.ledger.record({
        ...row(attempt),
        at: new Date(started),
        outcome: 'failed',
        error: failure.code,
        httpStatus: failure.status ?? null,
        model: ctx.redact(failure.usage?.model ?? target.modelRequested),
        tokensIn: failure.usage?.tokensIn ?? 0,
        tokensOut: failure.usage?.tokensOut ?? 0,
        reportedCostUsd: null,
        durationMs: ctx.now() - started,
      })
      if (aborted) throw error
      const delay = retryDelay(failure, attempt, policy, ctx.random)
      if (delay === null) throw failure
      ctx.log(`[ai] ${meta.feature}: ${target.provider} attempt ${attempt}/${policy.attempts} failed (${failure.code}${failure.status ? `, HTTP ${failure.status}` : ''}); retrying in ${delay} ms`)
      await ctx.sleep(delay)
    }
  }
}
