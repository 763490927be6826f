import { memoryApiError } from '../../core/api'
import { memoryConfig, type MemoryConfig } from '../../core/config'
import { facadeEmbedder, type Embedder } from '../../core/vectors/embedder'

/** The vault and reflex folders of this server (VAULT_DIR, REFLEX_DIR, DATA_DIR). */
export function useMemoryConfig(): MemoryConfig {
  return memoryConfig(process.env)
}

/** Embeddings through the hub's AI facade, labelled with the feature in the ledger. */
export async function useMemoryEmbedder(feature: string): Promise<Embedder> {
  return facadeEmbedder(useAiFacade(), { feature })
}

/** Rethrows a memory core error as an HTTP error with a machine-readable body. */
export function throwMemoryHttpError(error: unknown): never {
  const shape = memoryApiError(error)
  if (shape) throw createError(shape)
  throw error
}
