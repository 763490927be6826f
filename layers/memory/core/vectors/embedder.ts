// What the vector sync and the recall engine need from the AI facade: embeddings, and the
// provider/model the next call will use — known without calling anything, so that a sync
// with nothing new makes zero embedding calls yet still notices a model change.
import type { AiFacade } from '#layers/ai/core/facade'

export interface EmbeddingTarget {
  provider: string
  model: string
  /** The dimension the provider will be asked for (the routing table's params.dimensions). */
  dimensions?: number
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

export interface FacadeEmbedderOptions {
  /** The ledger label: memory_sync, memory_recall, memory_eval… */
  feature: string
  tenant?: string
}

/** The AI facade as an embedder; its target is the facade's own choice for the feature. */
export function facadeEmbedder(ai: Pick<AiFacade, 'embed' | 'embeddingTarget'>, options: FacadeEmbedderOptions): Embedder {
  return {
    target: async () => {
      const target = await ai.embeddingTarget(options.feature)
      return target ? { provider: target.provider, model: target.model, dimensions: target.dimensions } : null
    },
    embed: async (texts, inputType) => {
      const result = await ai.embed({ feature: options.feature, texts, inputType, tenant: options.tenant })
      return { vectors: result.vectors, provider: result.provider, model: result.model }
    },
  }
}
