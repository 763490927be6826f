// embed: texts → 1024-dimension vectors. Provider 'auto' → the ai_routing table (canonical:
// mistral / mistral-embed). Vectors of different models live in different spaces, so an
// embedding call never fails over to another provider on error (the caller keeps its
// lexical fallback); when the routed provider has no key, the first configured of
// mistral → voyage → openai → openai-compat takes its place, else the offline embedder —
// a choice fixed by the setup, not by an outage. Batches of 50, up to 5 attempts each,
// and the seed's 1.3 s throttle between embedding requests to the same remote provider
// (none for an endpoint on loopback: no rate limit to respect). The input type (query or
// document) goes to the providers that take it: Voyage's input_type, the prefixes of the
// OpenAI-compatible endpoint (OPENAI_COMPAT_EMBED_QUERY_PREFIX / _DOCUMENT_PREFIX).
import { randomUUID } from 'node:crypto'
import { EMBEDDING_BATCH_SIZE, EMBEDDING_DEFAULT_MODELS, EMBEDDING_DIMENSIONS, EMBEDDING_SUBSTITUTES, EMBEDDING_TIMEOUT_MS, type ProviderId, type Via } from './catalog'
import type { CallMeta, FacadeContext } from './context'
import { logOnce } from './context'
import { isLoopbackUrl, openAiCompatModels, providerBaseUrl } from './env'
import { AiAbortedError, AiRequestError, AiUnavailableError } from './errors'
import { asProviderError, runWithRetries } from './attempts'
import { validated } from './generate'
import { resolveRoute } from './routing-store'
import { EmbedInput, type EmbedRequest } from './schemas'

export interface EmbedResult {
  vectors: number[][]
  provider: ProviderId
  model: string
  dimensions: number
  tokensIn: number
  durationMs: number
  offline: boolean
  via: Via
}

function defaultEmbedModel(ctx: FacadeContext, provider: ProviderId): string | undefined {
  return provider === 'openai-compat' ? openAiCompatModels(ctx.env).embed : EMBEDDING_DEFAULT_MODELS[provider]
}

async function throttle(ctx: FacadeContext, provider: ProviderId): Promise<void> {
  if (provider === 'offline' || ctx.embedThrottleMs <= 0 || isLoopbackUrl(providerBaseUrl(ctx.env, provider))) return
  const last = ctx.lastEmbedCall.get(provider)
  if (last !== undefined) {
    const wait = last + ctx.embedThrottleMs - ctx.now()
    if (wait > 0) await ctx.sleep(wait)
  }
  ctx.lastEmbedCall.set(provider, ctx.now())
}

function choose(
  ctx: FacadeContext,
  feature: string,
  wanted: { provider: ProviderId, model: string | null },
  explicit: boolean,
): { provider: ProviderId, model: string, chain: string[] } {
  if (ctx.forcedOffline) return { provider: 'offline', model: EMBEDDING_DEFAULT_MODELS.offline!, chain: [] }
  if (ctx.registry.client(wanted.provider)?.embed) {
    const model = wanted.model ?? defaultEmbedModel(ctx, wanted.provider)
    if (!model)
      throw new AiUnavailableError(
        `${wanted.provider}: no embedding model named (set it in the routing table or OPENAI_COMPAT_EMBED_MODEL)`,
        [],
      )
    return { provider: wanted.provider, model, chain: [] }
  }
  if (explicit) {
    throw new AiUnavailableError(`${wanted.provider} is not configured for embeddings`, [
      { provider: wanted.provider, code: 'not_configured', message: `${wanted.provider} has no key` },
    ])
  }
  const chain = [`${wanted.provider}:not_configured`]
  for (const provider of EMBEDDING_SUBSTITUTES) {
    const model = defaultEmbedModel(ctx, provider)
    if (ctx.registry.client(provider)?.embed && model) {
      logOnce(
        ctx,
        `embed-substitute:${feature}`,
        `[ai] ${feature}: the routed embedding provider ${wanted.provider} is not configured; ${provider} (${model}) embeds instead`,
      )
      return { provider, model, chain }
    }
  }
  if (ctx.offlineFallback) {
    logOnce(ctx, 'embed-offline', '[ai] no embedding provider is configured: the offline embedder answers (labelled offline, no model)')
    return { provider: 'offline', model: EMBEDDING_DEFAULT_MODELS.offline!, chain }
  }
  throw new AiUnavailableError('All AI providers are unavailable (no embedding provider is configured)', [])
}

export interface EmbeddingTarget { provider: ProviderId, model: string, dimensions: number }

/**
 * Where the next embed() call of this feature would go, without calling anything (the vector
 * sync compares it with the model its rows were embedded with); null when nothing can embed.
 */
export async function embeddingTarget(ctx: FacadeContext, feature: string, provider: 'auto' | ProviderId = 'auto', model?: string): Promise<EmbeddingTarget | null> {
  const route = await resolveRoute(await ctx.db(), 'embed', feature, error => ctx.log(`[ai] routing table unreadable (${(error as Error).message}); canonical defaults apply`), ctx.routing)
  const explicit = provider !== 'auto'
  const wanted = explicit ? { provider, model: model ?? null } : { provider: route.provider, model: model ?? route.model }
  const dimensions = typeof route.params.dimensions === 'number' ? route.params.dimensions : EMBEDDING_DIMENSIONS
  try {
    const chosen = choose(ctx, feature, wanted, explicit)
    return { provider: chosen.provider, model: chosen.model, dimensions }
  }
  catch (error) {
    if (error instanceof AiUnavailableError) return null
    throw error
  }
}

export async function embed(ctx: FacadeContext, request: EmbedRequest): Promise<EmbedResult> {
  const input = validated(EmbedInput, request)
  const startedAt = ctx.now()
  const route = await resolveRoute(await ctx.db(), 'embed', input.feature, error => ctx.log(`[ai] routing table unreadable (${(error as Error).message}); canonical defaults apply`), ctx.routing)
  const explicit = input.provider !== 'auto'
  const wanted = explicit
    ? { provider: input.provider as ProviderId, model: input.model ?? null }
    : { provider: route.provider, model: input.model ?? route.model }
  const { provider, model, chain } = choose(ctx, input.feature, wanted, explicit)
  const dimensions = typeof route.params.dimensions === 'number' ? route.params.dimensions : EMBEDDING_DIMENSIONS
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new AiRequestError(`routing params.dimensions must be a positive integer (got ${String(route.params.dimensions)})`)
  if (ctx.cooldown.isCooling(provider)) {
    throw new AiUnavailableError(`All AI providers are unavailable (${provider}: cooldown)`, [{ provider, code: 'cooldown', message: `${provider} is cooling down after repeated failures` }])
  }
  const client = ctx.registry.client(provider)!
  const meta: CallMeta = { callId: randomUUID(), kind: 'embedding', feature: input.feature, tenant: input.tenant ?? null, actor: input.actor ?? null, startedAt }
  const vectors: number[][] = []
  let tokensIn = 0
  let answeredModel = model
  for (let start = 0; start < input.texts.length; start += EMBEDDING_BATCH_SIZE) {
    const texts = input.texts.slice(start, start + EMBEDDING_BATCH_SIZE)
    try {
      const result = await runWithRetries(
        ctx,
        meta,
        { provider, via: client.via, modelRequested: model, chain },
        ctx.retry.embedding,
        async () => {
          const answer = await client.embed!({
            model,
            texts,
            inputType: input.inputType,
            dimensions,
            timeoutMs: input.timeoutMs ?? EMBEDDING_TIMEOUT_MS,
            signal: request.signal,
          })
          return { ...answer, tokensOut: 0 }
        },
        () => throttle(ctx, provider),
      )
      vectors.push(...result.vectors)
      tokensIn += result.tokensIn
      answeredModel = result.model
    }
    catch (error) {
      if (error instanceof AiAbortedError) throw error
      const failure = asProviderError(provider, error)
      if (!failure.requestSpecific) ctx.cooldown.recordFailure(provider)
      const message = ctx.redact(failure.message)
      ctx.log(`[ai] ${input.feature}: embedding failed: ${message}`)
      throw new AiUnavailableError(ctx.redact(`All AI providers are unavailable (${provider}: ${failure.code})`), [{ provider, code: failure.code, status: failure.status, message }])
    }
  }
  ctx.cooldown.recordSuccess(provider)
  return { vectors, provider, model: answeredModel, dimensions, tokensIn, durationMs: ctx.now() - startedAt, offline: provider === 'offline', via: client.via }
}
