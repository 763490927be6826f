// What the vector sync and the recall engine need from the AI facade: embeddings, and the
// provider/model the next call will use — known without calling anything, so that a sync
// with nothing new makes zero embedding calls yet still notices a model change.
import type { Db } from '../../../../db/client'
import type { AiFacade } from '../../../ai/core/facade'
import { EMBEDDING_DEFAULT_MODELS, EMBEDDING_SUBSTITUTES, type ProviderId } from '../../../ai/core/catalog'
import { forcedOffline, offlineFallbackAllowed, openAiCompatModels, type AiEnv } from '../../../ai/core/env'
import { resolveRoute } from '../../../ai/core/routing-store'

export interface EmbeddingTarget {
  provider: string
  model: string
}

export interface Embedded {
  vectors: number[][]
  provider: string
  model: string
}

export interface Embedder {
  /** Where the next call goes, or null when no provider can embed. No call is made. */
  target: () => Promise<EmbeddingTarget | null>
  embed: (texts: string[], inputType: 'query' | 'document') => Promise<Embedded>
}

function defaultModel(env: AiEnv, provider: ProviderId): string | undefined {
  return provider === 'openai-compat' ? openAiCompatModels(env).embed : EMBEDDING_DEFAULT_MODELS[provider]
}

/**
 * The facade's embedding choice for a feature, computed from the same parts it uses (the
 * AI_OFFLINE switch, the ai_routing table, the configured providers, the substitutes).
 */
export async function facadeEmbeddingTarget(ai: Pick<AiFacade, 'providers'>, db: Db | undefined, env: AiEnv, feature: string): Promise<EmbeddingTarget | null> {
  if (forcedOffline(env)) return { provider: 'offline', model: EMBEDDING_DEFAULT_MODELS.offline! }
  const route = await resolveRoute(db, 'embed', feature)
  const configured = new Set(ai.providers().filter(status => status.configured && status.capabilities.includes('embedding')).map(status => status.provider))
  if (configured.has(route.provider)) {
    const model = route.model ?? defaultModel(env, route.provider)
    return model ? { provider: route.provider, model } : null
  }
  for (const provider of EMBEDDING_SUBSTITUTES) {
    const model = defaultModel(env, provider)
    if (configured.has(provider) && model) return { provider, model }
  }
  return offlineFallbackAllowed(env) ? { provider: 'offline', model: EMBEDDING_DEFAULT_MODELS.offline! } : null
}

export interface FacadeEmbedderOptions {
  db?: Db
  env: AiEnv
  /** The ledger label: memory_sync, memory_recall, memory_eval… */
  feature: string
  tenant?: string
}

export function facadeEmbedder(ai: Pick<AiFacade, 'embed' | 'providers'>, options: FacadeEmbedderOptions): Embedder {
  return {
    target: () => facadeEmbeddingTarget(ai, options.db, options.env, options.feature),
    embed: async (texts, inputType) => {
      const result = await ai.embed({ feature: options.feature, texts, inputType, tenant: options.tenant })
      return { vectors: result.vectors, provider: result.provider, model: result.model }
    },
  }
}
