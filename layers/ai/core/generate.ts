// generateContent: the single entry point for producing text (reply drafts, hub features).
// Provider: the requested one, else the tenant's clients.config.ai (active tenants only),
// else mistral; order [provider, ...mistral → anthropic → openai]; fallbacks realign to
// their default model (mistral-large-latest, claude-sonnet-4-6, gpt-4o).
import { randomUUID } from 'node:crypto'
import { GENERATION_DEFAULT_MODELS, GENERATION_TIMEOUT_MS, SOVEREIGN_ORDER, type ProviderId, type Via } from './catalog'
import { chatWithFailover } from './chat'
import type { FacadeContext } from './context'
import { openAiCompatModels } from './env'
import { AiRequestError } from './errors'
import { GenerateInput, type GenerateRequest } from './schemas'
import { resolveTenantAi } from './tenant'
import { z } from 'zod'

export interface GenerateResult {
  content: string
  /** Who actually answered, after any failover. */
  provider: ProviderId
  model: string
  tokensIn: number
  tokensOut: number
  durationMs: number
  /** True when the offline provider answered (no model). */
  offline: boolean
  via: Via
  failoverChain: string[]
}

export function failoverOrder(first: ProviderId): ProviderId[] {
  return [first, ...SOVEREIGN_ORDER.filter(provider => provider !== first)]
}

export function validated<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw new AiRequestError(z.prettifyError(parsed.error))
  return parsed.data
}

export async function generateContent(ctx: FacadeContext, request: GenerateRequest): Promise<GenerateResult> {
  const input = validated(GenerateInput, request)
  const startedAt = ctx.now()
  let first: { provider: ProviderId, model?: string } = { provider: input.provider ?? 'mistral', model: input.model }
  if (!input.provider && input.tenant) {
    const tenantAi = await resolveTenantAi(await ctx.db(), input.tenant, error => ctx.log(`[ai] tenant ${input.tenant}: configuration unreadable (${(error as Error).message}); using mistral`))
    if (tenantAi) first = { provider: tenantAi.provider, model: input.model ?? tenantAi.model }
  }
  const order = ctx.forcedOffline ? ['offline' as const] : failoverOrder(first.provider)
  const defaults = { ...GENERATION_DEFAULT_MODELS, 'openai-compat': openAiCompatModels(ctx.env).chat }
  const outcome = await chatWithFailover(ctx, {
    callId: randomUUID(), kind: 'generation', feature: input.feature, tenant: input.tenant ?? null, actor: input.actor ?? null, startedAt,
  }, { order, firstModel: ctx.forcedOffline ? undefined : first.model, defaults }, {
    prompt: input.prompt,
    system: input.systemPrompt,
    maxTokens: input.maxTokens,
    temperature: input.temperature,
    json: false,
    timeoutMs: input.timeoutMs ?? GENERATION_TIMEOUT_MS,
    signal: request.signal,
    feature: input.feature,
  })
  return {
    content: outcome.content,
    provider: outcome.provider,
    model: outcome.model,
    tokensIn: outcome.tokensIn,
    tokensOut: outcome.tokensOut,
    durationMs: outcome.durationMs,
    offline: outcome.offline,
    via: outcome.via,
    failoverChain: outcome.failoverChain,
  }
}
