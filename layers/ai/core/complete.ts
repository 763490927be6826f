// complete: a mission and a context to a model, text or JSON back (temperature 0).
// Provider 'auto' → the tenant's configuration when the call names an active tenant that
// has one, else the ai_routing table (feature row merged with the global row; canonical
// defaults when empty or unreachable). Failover as generateContent, with complete()'s
// default models.
import { randomUUID } from 'node:crypto'
import { COMPLETION_DEFAULT_MODELS, GENERATION_TIMEOUT_MS, type ProviderId } from './catalog'
import { chatWithFailover } from './chat'
import type { FacadeContext } from './context'
import { openAiCompatModels } from './env'
import { failoverOrder, validated, type GenerateResult } from './generate'
import { resolveRoute } from './routing-store'
import { CompleteInput, type CompleteRequest } from './schemas'
import { resolveTenantAi } from './tenant'

export interface CompleteResult extends GenerateResult {
  /** The parsed JSON object when `json: true`. */
  data?: unknown
}

export async function complete(ctx: FacadeContext, request: CompleteRequest): Promise<CompleteResult> {
  const input = validated(CompleteInput, request)
  const startedAt = ctx.now()
  const db = await ctx.db()
  const route = await resolveRoute(db, 'complete', input.feature, error => ctx.log(`[ai] routing table unreadable (${(error as Error).message}); canonical defaults apply`), ctx.routing)
  let first: { provider: ProviderId, model?: string } = { provider: route.provider, model: route.model ?? undefined }
  if (input.provider !== 'auto') {
    first = { provider: input.provider, model: input.model }
  }
  else if (input.tenant) {
    const tenantAi = await resolveTenantAi(db, input.tenant, error => ctx.log(`[ai] tenant ${input.tenant}: configuration unreadable (${(error as Error).message})`))
    if (tenantAi) first = { provider: tenantAi.provider, model: input.model ?? tenantAi.model }
    else if (input.model) first = { ...first, model: input.model }
  }
  else if (input.model) {
    first = { ...first, model: input.model }
  }
  const order = ctx.forcedOffline ? ['offline' as const] : failoverOrder(first.provider)
  const defaults = { ...COMPLETION_DEFAULT_MODELS, 'openai-compat': openAiCompatModels(ctx.env).chat }
  const timeoutMs = input.timeoutMs ?? (typeof route.params.timeoutMs === 'number' ? route.params.timeoutMs : GENERATION_TIMEOUT_MS)
  const maxTokens = input.maxTokens ?? (typeof route.params.maxTokens === 'number' ? route.params.maxTokens : 4096)
  const outcome = await chatWithFailover(ctx, {
    callId: randomUUID(), kind: 'completion', feature: input.feature, tenant: input.tenant ?? null, actor: input.actor ?? null, startedAt,
  }, { order, firstModel: ctx.forcedOffline ? undefined : first.model, defaults }, {
    prompt: input.prompt,
    system: input.system,
    maxTokens,
    temperature: input.temperature,
    json: input.json,
    timeoutMs,
    signal: request.signal,
    feature: input.feature,
  })
  return { ...outcome }
}
